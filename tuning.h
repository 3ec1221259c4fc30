/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tuning - every constant chosen by measurement, in one place, each with
 * what it trades and where its numbers are (Documentation/performance.md,
 * "Tuning knobs"). None changes the output: only speed and memory. Each
 * can be set at build time (-DNAME=value; bench/tune.sh --define builds
 * with others and compares them).
 */
#ifndef TUNING_H
#define TUNING_H

/* ---- the pipeline ------------------------------------------------------ */

/*
 * The window dwarf2btf runs with at -j@nr_jobs: EMIT_ORDERED_WINDOW_BASE
 * units, plus EMIT_ORDERED_WINDOW_PER_JOB per worker. Chosen by measurement
 * (bench/tune.sh; Documentation/performance.md, "Window").
 */
#ifndef EMIT_ORDERED_WINDOW_BASE
#define EMIT_ORDERED_WINDOW_BASE 4
#endif
#ifndef EMIT_ORDERED_WINDOW_PER_JOB
#define EMIT_ORDERED_WINDOW_PER_JOB 1
#endif

/* ---- the loader -------------------------------------------------------- */

/*
 * The units' ring has RING_UNIT_BYTES for each unit the window lets the
 * workers load ahead and for RING_SLACK_UNITS more, those emitted and not
 * yet written (the encoder's writer slots, the one being encoded); a unit
 * that finds no room then comes from malloc. Chosen by measurement
 * (Documentation/performance.md, "Tuning knobs").
 */
#ifndef RING_UNIT_BYTES /* bench/tune.sh --define builds with others */
#define RING_UNIT_BYTES (256u << 10)
#endif
#ifndef RING_SLACK_UNITS
#define RING_SLACK_UNITS 8
#endif

/*
 * Pages are dropped SECTION_RELEASE_STEP bytes or more at a time (and at
 * the section's end): every madvise() on a mapping shared by running
 * threads interrupts each CPU they run on to flush its TLB, and per unit
 * that would be thousands of interruptions. Chosen by measurement
 * (Documentation/performance.md, "Tuning knobs").
 */
#ifndef SECTION_RELEASE_STEP
#define SECTION_RELEASE_STEP (1u << 20)
#endif

/* ---- the encoder ------------------------------------------------------- */

/*
 * Units planned and not yet written: slack between the collector's and the
 * writer's stages, each slot holding a loaded unit. Fewer make one stage
 * wait on the other at high -j; more hold more units in memory.
 * Documentation/performance.md ("Tuning knobs").
 */
#ifndef WRITER_SLOTS
#define WRITER_SLOTS 4
#endif

/*
 * Types per batch (struct d2b_conf's batch_types): a batch closes after the
 * CU that brings it to this many. Chosen by measurement, see
 * Documentation/performance.md ("Tuning knobs").
 */
#ifndef BTF_BATCH_TYPES /* bench/tune.sh --define builds with others */
#define BTF_BATCH_TYPES (1u << 17)
#endif

/*
 * Dedups running at once at -jN on C CPUs: with B = min(N, C) loaders that
 * can run at once, B / BTF_BATCH_JOBS_PER_DEDUP (rounded up), at least
 * BTF_BATCH_DEDUPS and at most BTF_BATCH_DEDUPS_MAX; one while B is at most
 * BTF_BATCH_SINGLE_UPTO (C 0: not known, B = N). A batch's thread
 * (conversion and dedup) takes 1.5 to 3 times the writer's CPU time to
 * fill it (-V); with few loaders they, not the writer, set the pace and
 * two dedups keep up, but from about -j7 the writer runs at full speed and
 * two would hold it back. Each dedup more can hold another batch in memory
 * (8-10 MiB), hence the cap. BTF_BATCH_SINGLE_UPTO would allow only one
 * where at most that many loaders run at once: each dedup's thread leaves
 * a malloc arena with its own high-water mark. With every type written a
 * batch's thread takes as much CPU as a loader, and with one dedup the
 * writer waited for it at -j1 and -j2; two are 6% faster there for 4 MiB
 * more at the peak, so 0: never one alone. Documentation/performance.md
 * ("Tuning knobs", "Memory per thread") has the measurements.
 */
#ifndef BTF_BATCH_DEDUPS /* bench/tune.sh --define builds with others */
#define BTF_BATCH_DEDUPS 2
#endif
#ifndef BTF_BATCH_DEDUPS_MAX
#define BTF_BATCH_DEDUPS_MAX 4
#endif
#ifndef BTF_BATCH_JOBS_PER_DEDUP
#define BTF_BATCH_JOBS_PER_DEDUP 3
#endif
#ifndef BTF_BATCH_SINGLE_UPTO
#define BTF_BATCH_SINGLE_UPTO 0
#endif

/* ---- memory ------------------------------------------------------------ */

/*
 * malloc: blocks of this many bytes or more get a mapping of their own,
 * returned to the system when freed (M_MMAP_THRESHOLD; 0 keeps glibc's
 * default), and an arena keeps at most twice that free at its top
 * (M_TRIM_THRESHOLD, glibc's own ratio). A smaller block comes from memory
 * an arena holds, used again after a free; a mapped one faults its pages
 * in afresh, one by one, every time. At 8 MiB nearly every unit's block
 * (cu_pack) and a batch's arrays stay in the arenas: a third less CPU where a page fault costs microseconds (a
 * virtual machine), for some 20 MiB more at the peak. glibc's default
 * threshold rises with the blocks freed, so a run's memory depends on its
 * timing. Chosen by measurement (Documentation/performance.md, "Tuning
 * knobs").
 */
#ifndef D2B_MMAP_THRESHOLD
#define D2B_MMAP_THRESHOLD (8u << 20)
#endif

/* ---- threads ----------------------------------------------------------- */

/*
 * The collector (the main thread) and the encoder's writer are the threads
 * the run waits for; the loaders and the batch dedups only have to keep
 * ahead of them. So they run D2B_HELPER_NICE nicer: where the CPUs are busy
 * (-j above the number of CPUs, or other jobs of a parallel build), the
 * collector and the writer run first and the helpers take the rest.
 * Chosen by measurement (bench/tune.sh; Documentation/performance.md,
 * "Tuning knobs").
 */
#ifndef D2B_HELPER_NICE
#define D2B_HELPER_NICE 5
#endif

#endif /* TUNING_H */
