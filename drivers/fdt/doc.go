// Package fdt reads a flattened device tree (FDT, "DTB"): the description of the machine that
// firmware or QEMU hands an arm64 kernel in x0 — its memory, processors, interrupt controller
// and devices, and the /chosen node with the command line and the initrd.
// SPDX-License-Identifier: BSD-3-Clause
//
// # Concepts
//
//   - Tree (tree.go): a blob whose header, blocks and every token have been checked once, by
//     Open. It is a view of the caller's bytes: nothing is copied.
//   - Node and Prop (struct.go): offsets of a node's FDT_BEGIN_NODE token, and of a property's
//     FDT_PROP token, in the structure block. Walking is by offsets — FirstChild, Next,
//     FirstProp, NextProp, Prop — not by building a tree in memory.
//   - Values (values.go): a property's value is bytes; cells are big-endian u32s, addresses and
//     sizes one or two cells as the parent's #address-cells/#size-cells say, strings and
//     string lists NUL-terminated.
//   - Memory reservations (tree.go): the memory reservation block's (address, size) pairs.
//
// # Why a parser of our own
//
// The kernel reads the tree in Probe, at boot, before the Go runtime exists: no allocation, no
// maps, no package init (kernel/doc.go, "Contexts"). The Go libraries that read device trees
// (u-root's pkg/dt, which builds the whole tree as Node and Property structs in slices;
// tamago's boards, which hard-code their addresses instead) allocate, so this one works in place on the blob and
// returns offsets into it. Its package state is constants only.
//
// # Trust
//
// The blob comes from the loader, and a hostile or corrupt one must give the caller a reason,
// never a fault, a panic or a loop. Open validates everything before anything else reads it:
// the header's offsets and sizes against totalsize (64-bit arithmetic, so nothing wraps),
// alignment, every token of the structure block (names and property names NUL-terminated inside
// their blocks, value lengths inside the structure block, nesting balanced and at most MaxDepth
// deep, one root, properties before subnodes, FDT_END after the root) and the reservation block's
// terminator. The accessors still check each read and answer "none" rather than index out of
// range. Every walk advances at least one 4-byte token per step, so it ends. FuzzFDT checks all
// of this on arbitrary input.
//
// # Contexts
//
// Any: no allocation, no state, no locks. Callers pass a []byte over the blob (at boot, an
// unsafe.Slice over the physical address the loader gave).
//
// # References
//
//   - Devicetree Specification v0.4 (devicetree.org, 2023): §5.2 header, §5.3 memory
//     reservation block, §5.4 structure block (tokens §5.4.1, tree layout §5.4.2), §5.5 strings
//     block; §2.2.1 node names, §2.3.5 #address-cells/#size-cells, §2.3.6 reg, §2.3.8 ranges,
//     §3.4 /memory, §3.6 /chosen, §3.7-3.8 /cpus.
//   - Linux scripts/dtc/libfdt (fdt.c fdt_next_tag, fdt_ro.c): the same checks, in C.
//
// # Files
//
// tree.go the header, Open and the reservation block; struct.go tokens, nodes and properties;
// values.go cells, reg and strings; fdt_test.go the tests against QEMU virt's tree
// (testdata/virt.dtb, from qemu-system-aarch64 -M virt,dumpdtb=virt.dtb -m 1G -smp 2, QEMU 7.2)
// and against trees written by fdttest (the tests' tree writer), and FuzzFDT.
package fdt
