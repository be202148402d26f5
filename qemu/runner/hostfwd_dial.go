// Dialing through -hostfwd: one connection at a time, as QEMU's user network can take them.
// SPDX-License-Identifier: BSD-3-Clause

package runner

import (
	"context"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// HostFwdDialer dials TCP connections to a guest port forwarded with -hostfwd, letting one new
// connection at a time be on its way into the guest: a dial waits until the previous
// connection has read its first byte from the guest (or failed, or been closed, or 5 s have
// passed). It counts the dials. The zero value is ready to use; use it through a pointer, e.g.
// as an http.Transport's DialContext.
//
// Why: QEMU's user network listens for -hostfwd with a backlog of 1 (libslirp's tcp_listen;
// `ss -ltn` shows Send-Q 1) and accepts one connection per main-loop iteration. A burst of
// connects overflows that queue in the host kernel, which drops SYNs (the client retries a
// second later) and resets connections the client already counts as established — measured:
// 16 concurrent connects to a fresh guest, 5 reset, none of them ever seen by the guest (no SYN
// in a -pcap dump of its NIC). That is QEMU's limit, the same for any guest; clients that
// measure or test the guest's server keep within it.
type HostFwdDialer struct {
	n    atomic.Int64
	once sync.Once
	gate chan struct{} // a token, held from a dial until that connection's first byte
}

// Dials is the number of connections dialed so far.
func (d *HostFwdDialer) Dials() int64 { return d.n.Load() }

// DialContext dials network, addr once the previous connection has got its first byte.
func (d *HostFwdDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	d.once.Do(func() { d.gate = make(chan struct{}, 1) })
	select {
	case d.gate <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	d.n.Add(1)
	c, err := (&net.Dialer{Timeout: 30 * time.Second}).DialContext(ctx, network, addr)
	if err != nil {
		<-d.gate
		return nil, err
	}
	fc := &firstByteConn{Conn: c, release: func() { <-d.gate }}
	fc.timer = time.AfterFunc(5*time.Second, fc.done)
	return fc, nil
}

// firstByteConn calls release once: at its first read that returns data or an error, at its
// close, or when its timer fires, whichever comes first.
type firstByteConn struct {
	net.Conn
	once    sync.Once
	release func()
	timer   *time.Timer
}

func (c *firstByteConn) done() { c.once.Do(func() { c.timer.Stop(); c.release() }) }

func (c *firstByteConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if n > 0 || err != nil {
		c.done()
	}
	return n, err
}

func (c *firstByteConn) Close() error {
	c.done()
	return c.Conn.Close()
}
