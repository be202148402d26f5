// Package net is gmpos's virtio-net driver (virtio 1.2 §5.1).
// SPDX-License-Identifier: BSD-3-Clause
//
// It runs over package virtio's modern PCI transport: one receive queue kept full of 2 KiB
// buffers, one transmit queue with its own buffers, the MAC from the device configuration,
// interrupt suppression for a poller, and counters. The kernel copies frames between these buffers
// and user memory itself; this package never allocates after Init and makes no interface calls on
// the hot path.
//
// # Features (§5.1.3)
//
// Required: VIRTIO_F_VERSION_1. Taken if offered: VIRTIO_NET_F_MAC (the MAC is read from the
// device configuration, otherwise a fixed locally administered one is used), VIRTIO_NET_F_STATUS
// (LinkUp), VIRTIO_NET_F_MTU (only when the device's mtu is 68..1500: a larger one would need
// larger receive buffers, §5.1.4.1). No offloads (checksum, TSO, GSO), no
// VIRTIO_NET_F_MRG_RXBUF, no control queue: every frame is one buffer behind the 12-byte
// struct virtio_net_hdr of §5.1.6 (num_buffers included, as VERSION_1 has it), and the device's
// receive filtering is QEMU's default (promiscuous, no MAC table).
//
// Why no checksum offload or TSO (VIRTIO_NET_F_CSUM, HOST_TSO4, GUEST_CSUM): QEMU offers them
// only when its network backend takes a virtio_net_hdr itself (a tap device; hw/net/virtio-net.c
// virtio_net_get_features clears them when the peer has no vnet header). The runner's user
// networking (slirp) has none: QEMU 7.2's "info virtio-status" for a virtio-net-pci on
// -netdev user lists VERSION_1, MAC, STATUS, MRG_RXBUF, CTRL_VQ, the ring features and the legacy
// VIRTIO_NET_F_GSO, whose frames slirp would get uncut — and not CSUM or HOST_TSO4, which a
// Linux guest on the same NIC does not get either. What saves transmit notifications here is
// batching: the stack queues frames and hands the kernel bursts, one notification each.
//
// # Buffers
//
// Receive queue 0 has RxQueueSize entries (or the device's smaller maximum), each with a 2 KiB
// buffer (two per page): header and frame, device-writable, re-posted as soon as the kernel
// has copied the frame out (RxDone). Transmit queue 1 has TxQueueSize entries (256: a few of
// the stack's bursts) and as many 2 KiB buffers; a buffer is free again once the device has used it, which TxBuffer finds out by
// reaping the transmit queue (transmit completions raise no interrupt: the queue runs with
// VIRTQ_AVAIL_F_NO_INTERRUPT and no MSI-X vector).
//
// # Trust
//
// Received frames are validated after the queue's own checks (used id, used length, used.idx;
// package virtio): a used length shorter than the header plus an Ethernet header (14 bytes)
// or above header plus 1514 bytes, or a header announcing what we did not negotiate
// (NEEDS_CSUM, RSC_INFO, a GSO type, num_buffers above 1) is a counted drop and the buffer goes
// straight back to the device. QEMU leaves num_buffers unwritten without MRG_RXBUF, so the
// header is zeroed before each buffer is posted and 0 is accepted as well as 1.
//
// # Contexts and locking
//
// Init runs at boot (it allocates pages through the caller's PageAlloc). Everything else may
// run in trap and interrupt context; the Device is not locked: one caller at a time (the
// kernel's BKL holder). A Device is plain data, meant to be a package-level variable.
//
// # What the kernel does
//
//  1. Find the PCI function (vendor 0x1af4, device 0x1041 or 0x1000), map the memory BARs its
//     virtio capabilities name (QEMU: BAR 4, 64-bit prefetchable, 16 KiB) uncached.
//  2. With MSI-X: program MSI-X table entries (address/data) for the receive queue and,
//     optionally, configuration changes, and enable MSI-X in the capability (function unmasked)
//     before Init; pass the table entry numbers. Without: pass virtio.NoVector for both and
//     route the INTx line; its handler calls AckInterrupt.
//  3. virtio.PCI.Init(cfg, bar), then Device.Init(&pci, alloc, rxVector, cfgVector).
//  4. Interrupt: DisableRxInterrupts, wake the poller. Poller: RxNext/copy/RxDone until
//     RxNext reports none, then EnableRxInterrupts; if it reports pending, poll again.
//
// # References
//
// Virtio 1.2 §5.1 (network device): §5.1.2 virtqueues, §5.1.3 feature bits, §5.1.4 device
// configuration layout, §5.1.6 device operation (struct virtio_net_hdr, §5.1.6.3 receive
// buffers, §5.1.6.4 processing of incoming packets). Linux drivers/net/virtio_net.c for a
// cross-reading.
package net
