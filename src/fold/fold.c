/* fold.c - placeholder until implemented. */
