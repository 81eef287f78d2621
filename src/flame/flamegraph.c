/* flamegraph.c - placeholder until implemented. */
