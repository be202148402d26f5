// Package fdttest writes flattened device trees for tests: the shapes a test needs, and (with
// a walk over drivers/fdt's Tree, as kernel/board/virt's tests do) QEMU's tree with a property
// changed — without dtc, which the build host need not have.
// SPDX-License-Identifier: BSD-3-Clause
//
// # Concepts
//
//   - Builder (builder.go): Begin, Prop, End and NopToken append tokens to the structure
//     block, property names to the strings block; Blob lays out the version 17 header, the
//     memory reservation block (Builder.Reserve), the structure block and the strings block.
//
// # Contexts
//
// Tests only: it allocates freely. It does not import drivers/fdt, so that package's own
// (internal) tests can use it.
//
// # References
//
// Devicetree Specification v0.4, §5.2 (header), §5.3 (memory reservation block), §5.4
// (structure block), §5.5 (strings block).
package fdttest
