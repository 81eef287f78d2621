/*
 * kind.h - what kind of code a frame is in: what the flamegraph colours
 * by and fold's frames carry, apart from the symbolizer that finds it, so
 * that a user of the kinds (flame/, a test's frames) does not depend on
 * libelf's types or the symbolizer's contract.
 *
 * Values outside these are possible in a frame made elsewhere: a reader
 * treats them as SYM_KIND_UNKNOWN.
 */
#ifndef PSREC_SYMBOL_KIND_H
#define PSREC_SYMBOL_KIND_H

#define SYM_KIND_USER    0
#define SYM_KIND_KERNEL  1
#define SYM_KIND_JIT     2
#define SYM_KIND_UNKNOWN 3

#endif
