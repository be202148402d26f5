// Package p9 is gmpos's 9P2000.L client codec and virtio-9p device driver.
// SPDX-License-Identifier: BSD-3-Clause
//
// The kernel uses it to serve the runner's -share HOSTDIR:GUESTDIR: QEMU exports a host directory
// through a virtio-9p-pci device (-fsdev local,id=fs0,path=DIR,security_model=none
// -device virtio-9p-pci,fsdev=fs0,mount_tag=TAG) and the kernel is the 9P2000.L client. Two
// halves, used together but independent of each other:
//
//   - The codec (msg.go, wire.go, encode.go, walk.go, decode.go, attr.go, dirent.go): encoders
//     that write one T-message into a caller's buffer and return its length (0: it does not
//     fit), and decoders that take what the server wrote, validate all of it and hand back
//     fields and sub-slices of the buffer. Pure functions over []byte: no allocation, no state.
//   - The device (device.go, stats.go): the virtio-9p transport over package virtio — one
//     request queue, up to MaxSlots request slots each with an out-buffer (the T-message,
//     device-readable) and an in-buffer (the R-message, device-writable) of msize bytes,
//     Submit and Complete, interrupt suppression, counters.
//
// The caller (the kernel's 9P client) owns everything in between: fids, tags, slots, which
// request waits for which reply.
//
// # Why our own
//
// github.com/hugelgupf/p9 (gVisor's 9P code as a Go module) is a complete 9P2000.L client and
// server, and was read for it. But it is built for goroutines: its client talks over an
// io.ReadWriteCloser byte stream, keeps the requests in flight in a map guarded by mutexes, and
// makes each caller block on a channel while whichever caller holds the receive token reads
// replies for everyone; every message is an interface value marshalled through a buffer, and
// errors are built with fmt — it allocates on every request. gmpos's client runs in trap and
// interrupt context — a system call's handler, the device's interrupt, the poller — where the
// kernel may not allocate, block on a channel or lock a mutex. So the codec writes straight
// into the device's buffers (direct-map memory, not the Go heap), the decoders hand back
// sub-slices and plain structs, and the device hands completions to whoever polls.
//
// # Messages (9P2000.L)
//
// Every message is size[4] type[1] tag[2] body, little endian; size counts the whole message.
// A string is len[2] and that many bytes (no NUL); a qid is type[1] version[4] path[8]. Request
// and reply formats are those of Linux's net/9p/client.c (the format strings of its
// p9_client_rpc calls and p9pdu_readf) and QEMU's hw/9pfs/9p.c (the server); message numbers
// are Linux's include/net/9p/9p.h (enum p9_msg_t), an R-message being its T-message plus one.
// What 9P2000.L adds to 9P2000 is described in the diod project's protocol notes
// (github.com/chaos/diod, protocol.md) and Linux's Documentation/filesystems/9p.rst.
//
// Numbers the codec passes through unchanged are Linux's: Lopen and Lcreate flags are Linux's
// open(2) flags as x86-64 numbers them (9P2000.L's P9_DOTL_* flags are defined to be those
// values; QEMU's server maps them to the host's), Lcreate and Mkdir modes are st_mode
// permission bits, Unlinkat flags are AT_REMOVEDIR, and an Rlerror carries a Linux errno.
//
// # Trust
//
// The server is not trusted, nor is the device that carries its replies. Parse and Expect check
// the header (size field equal to the length the device reported, the tag the request used,
// the reply type the request expects, an Rlerror's errno in 1..4095); each reply decoder checks
// that the body has exactly the reply's layout — fixed-size replies their exact size, counted
// data (Rread, Rreaddir) and Rwrite's count no more than was asked, every string and count
// ending exactly at the body's end — and NextDirent checks every directory entry and its name
// (non-empty, at most NameMax bytes, no '/', no NUL). A malformed reply is a non-empty why string, never a panic or a slice outside
// the buffer; fuzz tests (fuzz_test.go) hold the decoders to that.
//
// Every length is read from the buffer once, into a local, and checked before it is used, so a
// device that rewrote the in-buffer after completing it could change what a slice holds but
// not where it points. Contents the kernel relies on after decoding (a name it will hand to a
// user program) are therefore copied out and checked on the copy when that matters.
//
// The device side follows package virtio's rules: every used entry is validated by the Queue
// (id, length, used.idx), and a completion naming a slot that is not in flight is a counted
// error (Stats), not a crash.
//
// # Contexts and locking
//
// Device.Init runs at boot (it allocates the rings and buffers through the caller's BufAlloc).
// The codec and the rest of the Device may run in trap and interrupt context: nothing
// allocates, locks, or calls through an interface. The Device is not locked: one caller at a
// time (the kernel's BKL holder). A Device is plain data (integers and uintptrs, no Go
// pointers), meant to be a package-level variable.
//
// # What the kernel does
//
//  1. Find the PCI function (vendor 0x1af4, device 0x1049 or 0x1009), map the BARs of its
//     virtio capabilities, program an MSI-X entry for the request queue (or pass
//     virtio.NoVector and use AckInterrupt from an INTx handler), virtio.PCI.Init.
//  2. Device.Init(&pci, alloc, slots, msize, vector); compare Tag() with the mount tag wanted.
//  3. Tversion (tag NoTag, msize ≤ MSize(), "9P2000.L") and check the reply: version
//     "9P2000.L" and an msize between 4096 and the one asked, which is then the session's
//     (counts of Tread, Twrite and Treaddir at most msize − IOHdrSize). Tattach the root fid.
//  4. Per request: take a free slot, encode into Out(slot), Submit(slot, n), sleep. Interrupt
//     (DisableInterrupts) or poller: Complete until it reports none, wake each slot's waiter,
//     then EnableInterrupts; if it reports pending, poll again. The waiter decodes
//     the reply with Expect(In(slot), inLen, tag, Treq) and the reply's decoder, then frees
//     the slot.
//
// # References
//
//   - Virtual I/O Device (VIRTIO) Version 1.2: §5 device types (9: 9P transport), §2.7 split
//     virtqueues, §3.1 device initialisation, §4.1.2 PCI device ids. The 9P transport's
//     configuration layout and feature bit are not in the specification: Linux's
//     include/uapi/linux/virtio_9p.h defines them (VIRTIO_9P_MOUNT_TAG, struct virtio_9p_config).
//   - Linux net/9p/client.c, net/9p/protocol.c, net/9p/trans_virtio.c; include/net/9p/9p.h.
//   - QEMU hw/9pfs/9p.c (the server), hw/9pfs/virtio-9p-device.c (the transport).
//   - Plan 9 intro(5) and walk(5) for the 9P2000 base (tags, fids, NOFID, NOTAG, MAXWELEM).
package p9
