// nethttp is the guest side of the network tests (tests/net_test.go). Two modes:
//
//	-mode=server [-addr=:8080]
//	              serve HTTP on addr until GET /quit: / says hello, POST /sum returns the
//	              body's SHA-256 and length, /stats reports open fds, heap and goroutines and the
//	              kernel's network counters (gmpos_info) as "name value" lines, /net only the
//	              counters (cheap enough to poll while frames are injected), /netstack the
//	              stack's own counters, /debug/pprof/profile a CPU profile (net/http/pprof)
//	-mode=client -url=URL [-mib=64]
//	              GET URL/hello, POST mib MiB to URL/sum and compare the checksum the host
//	              computed, GET URL/blob and check it against URL/blobsum
package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"math/rand"
	"net/http"
	"net/http/pprof"
	"os"
	"runtime"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"gmpos/kernel/netstack"
)

func main() {
	mode := flag.String("mode", "server", "server or client")
	url := flag.String("url", "", "client: the host server's base URL")
	addr := flag.String("addr", ":8080", "server: the address to listen on")
	mib := flag.Int("mib", 64, "client: MiB to POST to URL/sum")
	flag.Parse()
	switch *mode {
	case "server":
		serve(*addr)
	case "client":
		if err := client(*url, *mib); err != nil {
			fmt.Println("FAIL client:", err)
			os.Exit(1)
		}
		fmt.Println("client done")
	}
}

func serve(addr string) {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "hello from gmpos %s\n", r.URL.Path)
	})
	mux.HandleFunc("/sum", func(w http.ResponseWriter, r *http.Request) {
		h := sha256.New()
		n, err := io.Copy(h, r.Body)
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		fmt.Fprintf(w, "%x %d\n", h.Sum(nil), n)
	})
	mux.HandleFunc("/stats", func(w http.ResponseWriter, r *http.Request) {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		fmt.Fprintf(w, "fds %d\nheap_inuse %d\ngoroutines %d\n", openFDs(), ms.HeapInuse, runtime.NumGoroutine())
		for i, v := range netStats() {
			fmt.Fprintf(w, "net_%d %d\n", i, v)
		}
	})
	mux.HandleFunc("/net", func(w http.ResponseWriter, r *http.Request) {
		for i, v := range netStats() {
			fmt.Fprintf(w, "net_%d %d\n", i, v)
		}
	})
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile) // go tool pprof http://…/debug/pprof/profile
	mux.HandleFunc("/netstack", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "%+v\n", netstack.Stats())
	})
	quit := make(chan bool)
	mux.HandleFunc("/quit", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "bye\n")
		close(quit)
	})
	srv := &http.Server{Addr: addr, Handler: mux}
	go func() {
		if err := srv.ListenAndServe(); err != nil && err != http.ErrServerClosed {
			fmt.Println("FAIL serve:", err)
			os.Exit(1)
		}
	}()
	fmt.Println("serving on", addr)
	<-quit
	time.Sleep(100 * time.Millisecond)
	fmt.Println("server done")
}

// openFDs counts the open file descriptors (fcntl F_GETFD succeeds on each).
func openFDs() int {
	n := 0
	for fd := 0; fd < 1024; fd++ {
		if _, _, e := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFD, 0); e == 0 {
			n++
		}
	}
	return n
}

// netStats reads the kernel's network counters (gmpos_info request 8); nil off gmpos.
func netStats() []uint64 {
	buf := make([]uint64, 32)
	n, _, e := syscall.Syscall(0x6d70, 8, uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)))
	if e != 0 {
		return nil
	}
	return buf[:min(int(n), len(buf))]
}

func client(base string, mib int) error {
	c := &http.Client{Timeout: 2 * time.Minute}
	resp, err := c.Get(base + "/hello")
	if err != nil {
		return err
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.HasPrefix(string(b), "hello from the host") {
		return fmt.Errorf("GET /hello: %q", b)
	}
	fmt.Println("ok get")

	body := make([]byte, mib<<20)
	rand.New(rand.NewSource(7)).Read(body)
	want := sha256.Sum256(body)
	t0 := time.Now()
	resp, err = c.Post(base+"/sum", "application/octet-stream", bytes.NewReader(body))
	if err != nil {
		return err
	}
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if got := strings.TrimSpace(string(b)); got != fmt.Sprintf("%x %d", want, len(body)) {
		return fmt.Errorf("POST %d MiB: host computed %q, want %x", mib, got, want)
	}
	d := time.Since(t0)
	fmt.Printf("ok post %.1f MB/s\n", float64(len(body))/d.Seconds()/1e6)
	fmt.Printf("BENCH guest_tcp_upload %.1f MB/s\n", float64(len(body))/d.Seconds()/1e6)

	t0 = time.Now()
	resp, err = c.Get(base + "/blob")
	if err != nil {
		return err
	}
	h := sha256.New()
	n, err := io.Copy(h, resp.Body)
	resp.Body.Close()
	if err != nil {
		return err
	}
	d = time.Since(t0)
	resp, err = c.Get(base + "/blobsum")
	if err != nil {
		return err
	}
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if got := hex.EncodeToString(h.Sum(nil)); strings.TrimSpace(string(b)) != got {
		return fmt.Errorf("GET URL/blob: %d bytes, sum %s, host says %q", n, got, b)
	}
	fmt.Printf("ok blob %d bytes %.1f MB/s\n", n, float64(n)/d.Seconds()/1e6)
	fmt.Printf("BENCH guest_tcp_download %.1f MB/s\n", float64(n)/d.Seconds()/1e6)
	return nil
}
