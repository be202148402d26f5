// Command tbprof reports where a guest's instructions went, from the counts of the tbprof QEMU
// plugin (plugin/tbprof.c): per function and per package, of kernel and program alike.
// SPDX-License-Identifier: BSD-3-Clause
//
// The sampling profiler (gmpos run -profile) says where time went, but it cannot see into the
// kernel's trap path, which runs with interrupts off. Under TCG, counting is exact instead: the
// plugin adds each translation block's instruction count to a counter every time the block
// runs. Instructions are not time — a helper-heavy instruction (FXSAVE, WRMSR, an access to an
// emulated device) costs far more than an ADD — but for Go code they are close, and they do not
// depend on the host's load, so two builds compare in one run each.
//
//	make tbprof                                  # build/libtbprof.so (needs gcc)
//	go run ./qemu build -o /tmp/p.elf PKG        # the image, for its symbols
//	TBPROF_OUT=/tmp/long.txt go run ./qemu run -plugin build/libtbprof.so -net none PKG -- 20000
//	TBPROF_OUT=/tmp/short.txt go run ./qemu run -plugin build/libtbprof.so -net none PKG -- 1000
//	go run ./qemu/tbprof -n 19000 -base /tmp/short.txt /tmp/p.elf /tmp/long.txt
//
// Subtracting a short run of the same program (-base) removes boot and start-up, and -n divides
// what remains by the number of operations the difference made: instructions per operation.
// Blocks are attributed to the ELF symbol that contains their first instruction (a block never
// spans two functions in Go's code); addresses at or above the exec region (mm.ExecBase) are
// a child's copy of the program and are marked as such.
package main
