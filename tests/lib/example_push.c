// SPDX-License-Identifier: MIT
/* examples/push.c as a function, for examples_mem's one process. */
int rp_example_push_main(int argc, char **argv);
#define main rp_example_push_main
#include "../../examples/push.c"
