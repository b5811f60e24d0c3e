package graphmem.neo4jlauncher;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.neo4j.configuration.GraphDatabaseInternalSettings;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.BoltConnectorInternalSettings;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.io.ByteUnit;

/**
 * Runs an embedded Neo4j Community DBMS with a Bolt connector until the process
 * is terminated. Used by scripts/neo4j-local.sh to give tests a real server.
 *
 * Usage: Neo4jLauncher HOME_DIR [HOST] [PORT] [PAGECACHE_MB]
 */
public final class Neo4jLauncher {

    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            System.err.println("usage: Neo4jLauncher HOME_DIR [HOST] [PORT] [PAGECACHE_MB]");
            System.exit(2);
        }
        Path home = Path.of(args[0]).toAbsolutePath();
        String host = args.length > 1 ? args[1] : "127.0.0.1";
        int port = args.length > 2 ? Integer.parseInt(args[2]) : 7687;
        long pageCacheMb = args.length > 3 ? Long.parseLong(args[3]) : 256;

        long t0 = System.nanoTime();
        DatabaseManagementService dbms;
        try {
            dbms = new DatabaseManagementServiceBuilder(home)
                    .setConfig(BoltConnector.enabled, true)
                    .setConfig(BoltConnector.listen_address, new SocketAddress(host, port))
                    // Tests connect without credentials.
                    .setConfig(GraphDatabaseSettings.auth_enabled, false)
                    // Explicit size: the default is a share of the machine's RAM.
                    .setConfig(GraphDatabaseSettings.pagecache_memory, ByteUnit.mebiBytes(pageCacheMb))
                    // No usage-data pings: this machine must only talk to itself.
                    .setConfig(GraphDatabaseSettings.udc_enabled, false)
                    .setConfig(GraphDatabaseInternalSettings.udc_network_enabled, false)
                    // Bolt's defaults wait 5 s + 5 s idle on shutdown; a test
                    // server has nothing to drain, so stop in about a second.
                    .setConfig(BoltConnectorInternalSettings.thread_pool_shutdown_wait_time, Duration.ofSeconds(1))
                    .setConfig(BoltConnectorInternalSettings.connection_shutdown_wait_time, Duration.ofSeconds(1))
                    .setConfig(GraphDatabaseInternalSettings.netty_server_shutdown_quiet_period, 0)
                    .setConfig(GraphDatabaseInternalSettings.netty_server_shutdown_timeout, Duration.ofSeconds(5))
                    .build();
        } catch (Throwable t) {
            System.err.println("neo4j-launcher: failed to start: " + t);
            t.printStackTrace();
            System.exit(1);
            return;
        }

        // SIGTERM/SIGINT run this: flush and close the store cleanly.
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            System.out.println("neo4j-launcher: shutting down");
            try {
                dbms.shutdown();
            } catch (Throwable t) {
                t.printStackTrace();
            }
            System.out.println("neo4j-launcher: stopped");
            System.out.flush();
        }, "neo4j-shutdown"));

        // build() returns before the default database may accept queries; wait
        // for it so "ready" means Bolt queries will succeed.
        GraphDatabaseService db = dbms.database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME);
        if (!db.isAvailable(TimeUnit.SECONDS.toMillis(120))) {
            System.err.println("neo4j-launcher: default database not available");
            System.exit(1);
        }
        db.executeTransactionally("RETURN 1");

        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        System.out.println("neo4j-launcher: ready bolt://" + host + ":" + port + " home=" + home + " in " + ms + " ms");
        System.out.flush();

        // Park the main thread; the process lives until it is signalled.
        new CountDownLatch(1).await();
    }
}
