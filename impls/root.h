/* Where corobench's own files are at run time: the implementations that are not compiled in
 * (the Lua and JavaScript files under impls/, bin/corobench-go) are found from the executable. */
#ifndef CB_ROOT_H
#define CB_ROOT_H

/* The first directory above the running executable's that holds the Makefile and impls/ (bin/corobench
 * and build/<arch>/cbtest both find the source tree); NULL if none within three levels. */
const char *cb_root_dir(void);

#endif
