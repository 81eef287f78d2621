/* archive.c - placeholder until implemented. */
