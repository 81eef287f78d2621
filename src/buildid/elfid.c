/* elfid.c - placeholder until implemented. */
