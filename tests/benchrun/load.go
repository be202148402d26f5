// The host's side of the network benchmarks: the HTTP load client and the bulk transfers.
// SPDX-License-Identifier: BSD-3-Clause

package main

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/http"
	"sort"
	"sync"
	"time"

	"gmpos/qemu/runner"
)

// netConfig is what the network benchmarks do.
type netConfig struct {
	conns    int           // keep-alive HTTP connections
	httpTime time.Duration // how long they send requests
	bulk     int64         // bytes of each bulk transfer
}

// driveNet runs the network benchmarks against a guest whose HTTP server is at httpAddr and
// bulk server at bulkAddr (host addresses: QEMU's forwards, or the native program's).
func driveNet(ctx context.Context, httpAddr, bulkAddr string, cfg netConfig) (figures, []string, error) {
	url := "http://" + httpAddr + "/"
	if err := waitHTTP(ctx, url, time.Minute); err != nil {
		return nil, nil, err
	}
	figs := figures{}
	var notes []string
	lr, err := httpLoad(ctx, url, cfg.conns, cfg.httpTime)
	if err != nil {
		return nil, nil, err
	}
	figs["http_req_per_s"] = figure{round1(float64(lr.requests) / lr.elapsed.Seconds()), "req/s"}
	figs["http_p50"] = figure{round1(us(percentile(lr.latencies, 0.50))), "us"}
	figs["http_p99"] = figure{round1(us(percentile(lr.latencies, 0.99))), "us"}
	if lr.errors > 0 || lr.dials > int64(cfg.conns) {
		notes = append(notes, fmt.Sprintf("HTTP: %d requests failed (first: %v); %d connections opened for %d clients",
			lr.errors, lr.firstErr, lr.dials, cfg.conns))
	}
	for _, b := range []struct {
		name string
		op   byte
	}{{"tcp_host_to_guest", 'U'}, {"tcp_guest_to_host", 'D'}} {
		d, err := bulkTransfer(ctx, bulkAddr, b.op, cfg.bulk)
		if err != nil {
			return figs, notes, fmt.Errorf("%s: %v", b.name, err)
		}
		figs[b.name] = figure{round1(float64(cfg.bulk) / d.Seconds() / 1e6), "MB/s"}
	}
	return figs, notes, nil
}

// waitHTTP polls url until it answers 200, with short attempts: QEMU's user network accepts
// the host's connection at once and only then connects to the guest.
func waitHTTP(ctx context.Context, url string, limit time.Duration) error {
	c := &http.Client{Timeout: time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	deadline := time.Now().Add(limit)
	for {
		err := get(ctx, c, url)
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("the guest's HTTP server does not answer at %s: %v", url, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func get(ctx context.Context, c *http.Client, url string) error {
	req, err := http.NewRequestWithContext(ctx, "GET", url, nil)
	if err != nil {
		return err
	}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("%s: %s", url, resp.Status)
	}
	return err
}

type loadResult struct {
	requests  int // successful, in the measured time
	errors    int
	firstErr  error
	dials     int64
	elapsed   time.Duration
	latencies []time.Duration // sorted
}

// httpLoad drives url with conns keep-alive clients for dur, each sending its next GET when
// the previous answer has arrived. Every client first sends one request outside the measured
// time, which opens its connection; the connections open one at a time (runner.HostFwdDialer), and the
// clock starts when all are open.
func httpLoad(ctx context.Context, url string, conns int, dur time.Duration) (loadResult, error) {
	d := new(runner.HostFwdDialer)
	tr := &http.Transport{DialContext: d.DialContext, MaxConnsPerHost: conns, MaxIdleConnsPerHost: conns,
		DisableCompression: true}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr, Timeout: 10 * time.Second}

	var wg sync.WaitGroup
	warm := make([]error, conns)
	for i := range conns {
		wg.Add(1)
		go func() { defer wg.Done(); warm[i] = get(ctx, c, url) }()
	}
	wg.Wait()
	for _, err := range warm {
		if err != nil {
			return loadResult{}, fmt.Errorf("opening %d connections: %v", conns, err)
		}
	}

	var mu sync.Mutex
	var res loadResult
	start := time.Now()
	end := start.Add(dur)
	for range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var lat []time.Duration
			var errs int
			var first error
			for time.Now().Before(end) && ctx.Err() == nil {
				t := time.Now()
				if err := get(ctx, c, url); err != nil {
					errs++
					if first == nil {
						first = err
					}
					continue
				}
				lat = append(lat, time.Since(t))
			}
			mu.Lock()
			res.latencies = append(res.latencies, lat...)
			res.errors += errs
			if res.firstErr == nil {
				res.firstErr = first
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	res.elapsed = time.Since(start)
	res.requests = len(res.latencies)
	res.dials = d.Dials()
	sort.Slice(res.latencies, func(i, j int) bool { return res.latencies[i] < res.latencies[j] })
	if res.requests == 0 {
		return res, fmt.Errorf("no request succeeded in %v: %v", dur, res.firstErr)
	}
	return res, ctx.Err()
}

// percentile is the nearest-rank percentile (0 < p ≤ 1) of sorted durations.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(float64(len(sorted))*p+0.999999) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// bulkTransfer moves n bytes over one connection to the guest's bulk server (tests/bench,
// serve.go): op 'U' from the host to the guest, timed until the guest confirms it has read
// them all; 'D' from the guest to the host, timed until the last byte has arrived. The clock
// starts after the connection is open.
func bulkTransfer(ctx context.Context, addr string, op byte, n int64) (time.Duration, error) {
	c, err := (&net.Dialer{Timeout: 30 * time.Second}).DialContext(ctx, "tcp", addr)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	if dl, ok := ctx.Deadline(); ok {
		c.SetDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { c.SetDeadline(time.Now()) })
	defer stop()
	var hdr [9]byte
	hdr[0] = op
	binary.BigEndian.PutUint64(hdr[1:], uint64(n))
	t0 := time.Now()
	if _, err := c.Write(hdr[:]); err != nil {
		return 0, err
	}
	switch op {
	case 'U':
		buf := make([]byte, 64<<10)
		for i := range buf {
			buf[i] = byte(i * 13)
		}
		for sent := int64(0); sent < n; {
			k, err := c.Write(buf[:min(int64(len(buf)), n-sent)])
			sent += int64(k)
			if err != nil {
				return 0, fmt.Errorf("after %d of %d bytes: %v", sent, n, err)
			}
		}
		var ack [8]byte
		if _, err := io.ReadFull(c, ack[:]); err != nil {
			return 0, fmt.Errorf("waiting for the guest's count: %v", err)
		}
		if got := binary.BigEndian.Uint64(ack[:]); got != uint64(n) {
			return 0, fmt.Errorf("the guest read %d bytes of %d", got, n)
		}
		return time.Since(t0), nil
	default:
		got, err := io.Copy(io.Discard, c)
		d := time.Since(t0)
		if err != nil || got != n {
			return 0, fmt.Errorf("received %d bytes of %d: %v", got, n, err)
		}
		return d, nil
	}
}

func us(d time.Duration) float64 { return float64(d) / 1e3 }

func round1(v float64) float64 { return float64(int64(v*10+0.5)) / 10 }
