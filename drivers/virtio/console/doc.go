// Package console is gmpos's virtio console driver (virtio 1.2 §5.3): the program's output at
// memory speed, framed so that stdout and stderr travel as one ordered stream.
// SPDX-License-Identifier: BSD-3-Clause
//
// The kernel writes the program's fds 1 and 2 here instead of byte by byte into 16550 UARTs:
// it copies the bytes into a ring in guest memory and the device (QEMU) takes them a whole
// descriptor at a time, so that a write costs a copy and one notification rather than two
// emulated I/O-port accesses and a host system call per byte (kernel/vconsole.go).
//
// # Which port (why MULTIPORT, and not the console port 0)
//
// QEMU drops console data it cannot pass on: a virtconsole port — port 0, the only one a driver
// without VIRTIO_CONSOLE_F_MULTIPORT can use — that meets a full host socket discards the rest
// of the buffer ("we should be queuing data to send later for the console devices too rather
// than silently dropping console data on EAGAIN", hw/char/virtio-console.c flush_buf), because
// Linux's hvc driver writes with spinlocks held. A virtserialport is throttled instead: QEMU
// keeps the buffer, waits for the socket to take more and only then completes it. So the
// driver requires MULTIPORT, and the runner gives the device one generic port, number Port
// (-device virtserialport,nr=1; QEMU reserves port 0 for virtconsole). The back-pressure is
// the point: a host that reads slowly makes the kernel park the writer, never lose its bytes.
//
// # Queues and the control handshake (§5.3.2, §5.3.5, §5.3.6.2)
//
// With MULTIPORT, queues 2 and 3 carry control messages (struct virtio_console_control: le32
// id, le16 event, le16 value) and port n ≥ 1 has receiveq 2n+2 and transmitq 2n+3 (port 0:
// 0 and 1). The driver sets up the control queues and the port's transmitq; the port's
// receiveq stays disabled (no input yet). After DRIVER_OK it sends DEVICE_READY; the device
// answers with a PORT_ADD per port; the driver answers PORT_ADD of its port with PORT_READY
// and PORT_OPEN (the guest side is open); the device says PORT_OPEN when the host side is
// (QEMU: the chardev is connected). Poll runs this exchange; the port is usable (Open) once
// both sides are open. QEMU discards what a port whose host side is closed is given, so
// nothing is written before that.
//
// # Output: records in a byte ring
//
// Output is a stream of records (docs/contract.md, "Virtio console"): channel u8 (1 stdout,
// 2 stderr), length u16 little endian (1..65535), then that many bytes. The records live in
// one physically contiguous ring of the caller's memory. Write appends records (a write
// continues the previous record when that one has not been handed to the device yet and is
// on the same channel: small writes of one stream coalesce), Submit hands the bytes appended
// since the last Submit to the device as descriptors of at most MaxChunk bytes (split where
// the ring wraps) and notifies it, and Reap takes completed descriptors back. Space frees in
// ring order: a descriptor completed ahead of an older one waits for it (virtio does not
// promise in-order completion without VIRTIO_F_IN_ORDER; QEMU completes one port in order).
// A descriptor is device-readable: the device reports 0 bytes used (§2.7.8), and the length
// is not needed.
//
// Descriptors are few (the transmitq has at most 256): bytes appended while all are in
// flight wait in the ring and are handed over by the next Reap, so that even a stream of tiny
// writes can fill the ring, not the queue.
//
// # Trust
//
// The device is not trusted. The queues validate used entries (package virtio); tokens are
// checked against the descriptors in flight, so a completion can neither free ring space twice
// nor free space still queued. Control messages are decoded from a copy of their 8 bytes and
// checked (DecodeControl): a short message, an unknown event or another port's message is
// counted and ignored. A device that completes nothing keeps the ring full: the kernel's
// writer waits and its exit-time flush gives up after its deadline, nothing worse.
//
// # Contexts and locking
//
// Init runs at boot (it allocates through the caller's functions). Everything else may run in
// trap and interrupt context, with interrupts off, and in the kernel's fault report, which
// polls: nothing here waits for an interrupt. The Device is not locked: one caller at a time
// (the kernel's BKL holder). A Device is plain data, meant to be a package-level variable.
//
// # References
//
// Virtio 1.2 §5.3 (console device): §5.3.2 virtqueues, §5.3.3 feature bits, §5.3.4 device
// configuration layout, §5.3.5 device initialization, §5.3.6 device operation, §5.3.6.2
// multiport device operation (control messages). Linux drivers/char/virtio_console.c and
// QEMU hw/char/virtio-serial-bus.c, hw/char/virtio-console.c for a cross-reading.
package console
