// The network benchmarks' servers: HTTP, and bulk TCP in both directions.
// SPDX-License-Identifier: BSD-3-Clause

package main

import (
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

// page is what GET / returns: a small HTML page, so that a request costs the HTTP machinery
// and the network, not the copying of a body.
const page = `<!DOCTYPE html>
<html><head><title>bench</title></head>
<body><p>Hello from the benchmark guest.</p></body></html>
`

// Bulk protocol, one transfer per connection. The client sends 9 bytes: an operation and a
// big-endian 64-bit byte count N.
//
//	'U' upload:   the client then sends N bytes; the server reads them all and answers with the
//	              8-byte count it received (the client's clock stops there)
//	'D' download: the server sends N bytes and closes the connection
const (
	BulkUpload   = 'U'
	BulkDownload = 'D'
)

// serve listens on both addresses, prints READY and serves until GET /quit.
func serve(httpAddr, bulkAddr string) error {
	hl, err := net.Listen("tcp", httpAddr)
	if err != nil {
		return err
	}
	bl, err := net.Listen("tcp", bulkAddr)
	if err != nil {
		return err
	}
	quit := make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, page)
	})
	mux.HandleFunc("/quit", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "bye\n")
		select {
		case <-quit:
		default:
			close(quit)
		}
	})
	go http.Serve(hl, mux)
	go func() {
		for {
			c, err := bl.Accept()
			if err != nil {
				return
			}
			go func() {
				if err := bulk(c); err != nil {
					fmt.Println("INFO bulk:", err)
				}
			}()
		}
	}()
	fmt.Printf("READY http=%s bulk=%s\n", hl.Addr(), bl.Addr())
	<-quit
	time.Sleep(100 * time.Millisecond) // let the reply to /quit leave
	return nil
}

func bulk(c net.Conn) error {
	defer c.Close()
	var hdr [9]byte
	if _, err := io.ReadFull(c, hdr[:]); err != nil {
		return err
	}
	n := binary.BigEndian.Uint64(hdr[1:])
	buf := make([]byte, 64<<10)
	switch hdr[0] {
	case BulkUpload:
		var got uint64
		for got < n {
			k, err := c.Read(buf[:min(uint64(len(buf)), n-got)])
			got += uint64(k)
			if err != nil {
				return fmt.Errorf("upload: %d of %d bytes: %v", got, n, err)
			}
		}
		binary.BigEndian.PutUint64(hdr[1:], got)
		_, err := c.Write(hdr[1:])
		return err
	case BulkDownload:
		for i := range buf {
			buf[i] = byte(i * 7)
		}
		for sent := uint64(0); sent < n; {
			k, err := c.Write(buf[:min(uint64(len(buf)), n-sent)])
			sent += uint64(k)
			if err != nil {
				return fmt.Errorf("download: %d of %d bytes: %v", sent, n, err)
			}
		}
		return nil
	}
	return fmt.Errorf("unknown operation %q", hdr[0])
}
