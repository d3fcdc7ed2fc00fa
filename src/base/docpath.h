/*
 * docpath.h: where the documents that outputs cite are, as a user finds them: the
 * installed copy (meson sets TDPROF_DOCDIR to PREFIX/share/doc/tdprof, where
 * docs/meson.build installs them), and the source tree's path beside it.
 */
#ifndef TDPROF_BASE_DOCPATH_H
#define TDPROF_BASE_DOCPATH_H

#ifndef TDPROF_DOCDIR
#define TDPROF_DOCDIR "share/doc/tdprof"
#endif

/** The simulated machine and cost model, for outputs: "/usr/local/share/doc/tdprof/sim-machine.md (...)". */
#define TDP_DOC_SIM_MACHINE TDPROF_DOCDIR "/sim-machine.md (docs/sim-machine.md in the source)"

#endif
