/* idcache.c - placeholder until implemented. */
