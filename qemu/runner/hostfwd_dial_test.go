// SPDX-License-Identifier: BSD-3-Clause

package runner

import (
	"context"
	"net"
	"testing"
	"time"
)

// TestHostFwdDialerOneAtATime: a second dial waits until the first connection has read its
// first byte. (A slow machine can only make the wait look longer, never end it early.)
func TestHostFwdDialerOneAtATime(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 2)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- c
		}
	}()
	var d HostFwdDialer
	ctx := context.Background()
	c1, err := d.DialContext(ctx, "tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c1.Close()
	second := make(chan net.Conn, 1)
	go func() {
		c, err := d.DialContext(ctx, "tcp", ln.Addr().String())
		if err != nil {
			t.Error(err)
		}
		second <- c
	}()
	select {
	case <-second:
		t.Fatal("the second dial did not wait for the first connection's first byte")
	case <-time.After(200 * time.Millisecond):
	}
	s1 := <-accepted
	defer s1.Close()
	s1.Write([]byte("x"))
	if _, err := c1.Read(make([]byte, 1)); err != nil {
		t.Fatal(err)
	}
	c2 := <-second // now it goes ahead
	if c2 == nil {
		t.Fatal("second dial failed")
	}
	c2.Close()
	if d.Dials() != 2 {
		t.Fatalf("Dials() = %d, want 2", d.Dials())
	}
}
