// SPDX-License-Identifier: MIT
/* examples/recv.c as a function, for examples_mem's one process. */
int rp_example_recv_main(int argc, char **argv);
#define main rp_example_recv_main
#include "../../examples/recv.c"
