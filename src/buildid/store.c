/* store.c - placeholder until implemented. */
