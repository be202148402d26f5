// Package virtio is gmpos's virtio 1.x transport (modern PCI) and split virtqueue.
// SPDX-License-Identifier: BSD-3-Clause
//
// It is written for the kernel's boot and trap contexts: no heap allocation after construction, no
// maps, no fmt, and no interface calls on the hot path (adding buffers, kicks, reaping used
// buffers, interrupt suppression). Devices (drivers/virtio/net) are built on top of it.
//
// # Why our own
//
// tamago's kvm/virtio (github.com/usbarmory/tamago) has the same shape — a transport, a split
// virtqueue, negotiation — and was read for it, but it runs only with GOOS=tamago (its dma and
// reg packages need tamago's patched toolchain), allocates on every operation (bytes.Buffer,
// binary.Write, fmt) and trusts what the device writes. gmpos builds with the stock toolchain
// and runs the driver in trap context, so this package is written from the virtio 1.2 spec.
//
// # Pieces
//
//   - Transport (transport.go): the init-time view of a virtio device — status, features,
//     queue registers, notify addresses, device configuration, MSI-X vectors, ISR. PCI
//     (pci.go, pcicaps.go) is the modern PCI transport (§4.1); virtio-mmio (§4.2) could be a
//     second implementation and the Queue would not change.
//   - Negotiation (status.go): the device initialisation sequence of §3.1.1 — Begin (reset,
//     ACKNOWLEDGE, DRIVER, read the offer), Accept (write the features, FEATURES_OK, re-read),
//     DriverOK, Fail.
//   - Queue (queue.go, used.go): a split virtqueue (§2.7) of at most MaxQueueSize entries whose
//     descriptor table, driver area and device area live in three pages from a PageAlloc.
//   - Register access (reg.go): 8/16/32/64-bit MMIO reads and writes the compiler can neither
//     drop nor merge.
//   - Errors (errors.go): constant strings (Error), no fmt, no allocation.
//
// Tests play the device with internal/fakedev: a Transport whose registers are Go fields, pages
// from a pinned Go slab (physical = virtual) and the device side of a split queue; FuzzUsedRing
// checks Pop against a model, FuzzPCICaps the capability walk.
//
// # Trust
//
// The device is not trusted. Everything it writes is checked before use, and a bad value is a
// counted error, never a panic, an out-of-range index or a fault:
//
//   - at init: capability offsets and lengths against the capability and the BAR, the notify
//     multiplier and every queue's notify offset, queue sizes (0, not a power of 2), vectors
//     read back;
//   - at run time: used-ring ids (< queue size and the head of a chain in flight: a descriptor is
//     never recycled twice; and published after that chain was posted, so a duplicate completion
//     read after the driver re-posted the same descriptor is caught, not taken for the new
//     buffer), used lengths (≤ what was posted), and used.idx (never more than the queue size
//     ahead of what was consumed: a queue whose device does that is marked broken and delivers
//     nothing more). Counters by kind: QueueStats.
//
// The driver never reads back the descriptor table or the available ring (the device may not
// write them, but could): it keeps its own shadow of what it posted.
//
// # Memory ordering
//
// The rings are shared with the device, which is another processor (the hypervisor's I/O thread)
// or a DMA engine. See queue.go: the 32-bit words holding flags|idx of both rings are accessed
// with sync/atomic only, which gives the release (publish avail.idx after the entries), acquire
// (read used entries after used.idx) and store→load (read used.flags after publishing) orderings
// the spec requires (§2.7.13, §2.7.13.3.1, §2.7.13.4), on x86-64 and arm64 alike.
//
// # Contexts and locking
//
// Init-time functions (PCI.Init, Begin, Accept, Queue.Init, DriverOK, Fail) run at boot. Queue's
// other methods may run in trap and interrupt context. Nothing here locks: a Queue (and the
// device driver owning it) is used by one caller at a time — in the kernel, the BKL holder. The
// one exception is a Notifier (Queue.KickPrepare): it writes only the queue's fixed notify
// register, so the kernel calls it after releasing the BKL, as Linux's virtio-blk calls
// virtqueue_notify outside its queue's lock.
// All types are plain data (integers and uintptrs, no Go pointers), usable as package-level
// variables: no write barriers, nothing for the garbage collector to find.
//
// # References
//
//   - Virtual I/O Device (VIRTIO) Version 1.2, OASIS Committee Specification 01 (2022):
//     §2.1 status, §2.2 features, §2.5 config space, §2.7 split virtqueues, §3.1 device
//     initialisation, §4.1 virtio over PCI, §6 reserved feature bits.
//   - PCI Local Bus Specification 3.0, §6.2.2 (Command), §6.2.3 (Status), §6.7 (capability
//     list).
//   - Cross-reading: Linux drivers/virtio/virtio_ring.c, virtio_pci_modern_dev.c; tamago
//     kvm/virtio.
package virtio
