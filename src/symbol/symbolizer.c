/* symbolizer.c - placeholder until implemented. */
