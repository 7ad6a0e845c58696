/* Build facts baked in by the Makefile (this object is rebuilt on every make). */
#include "build.h"

const char cb_build_commit[] = CB_GIT_COMMIT;
const char cb_build_cc[] = CB_CC;
const char cb_build_compiler[] = __VERSION__;
const char cb_build_cflags[] = CB_CFLAGS;
/* The C++ compilers of cxx20 and cxx20-clang, their versions and flags; empty when not built. */
const char cb_build_cxx20[] = CB_CXX20;
const char cb_build_cxx20_clang[] = CB_CXX20_CLANG;
const char cb_build_arch[] = CB_ARCH;
/* "plain" or "jmpret": how this binary's own code returns (docs/rsb.md). */
const char cb_build_variant[] = CB_VARIANT;
