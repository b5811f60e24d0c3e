from graphmem_server import main

main()
