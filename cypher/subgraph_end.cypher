// Part 4: every fact reached, with the hop that first reached it.
UNWIND found AS x
RETURN x.fact AS f, x.hop AS hop
ORDER BY hop, f.id
