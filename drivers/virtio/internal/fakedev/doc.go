// Package fakedev is a virtio device played in Go over ordinary memory, for hosted tests.
// SPDX-License-Identifier: BSD-3-Clause
//
// It serves package virtio and its device drivers: a Transport with the device's registers as
// fields, a page allocator over a pinned Go slab (physical address = virtual address), and the
// device side of a split virtqueue (read the available ring and descriptors, write used entries —
// correct ones, or hostile ones). Test support only: it allocates freely and trusts its caller.
package fakedev
