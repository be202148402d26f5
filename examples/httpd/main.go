// An ordinary net/http server whose page shows the gmpos kernel's scheduler and network, live.
// SPDX-License-Identifier: BSD-3-Clause
//
//	build/gmpos run -smp 2 -hostfwd 8080:8080 ./examples/httpd
//
// then open http://127.0.0.1:8080 (the page refreshes itself every second; /stats is the same
// data as JSON). Only gmposInfo knows about gmpos: it asks the kernel through its own system
// call, gmpos_info (kernel/sys_gmpos.go). On any other system that call fails with ENOSYS and
// the page says so; the server itself is plain Go.
package main

import (
	_ "embed"
	"encoding/json"
	"errors"
	"flag"
	"html/template"
	"log"
	"net/http"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"gmpos/kernel/netabi"
	"gmpos/sched"
)

// gmpos_info's number and requests (kernel/sys_gmpos.go).
const (
	sysGmposInfo  = 0x6d70
	infoSchedStat = 2 // buf ← scheduler counters in sched.Stat order, n entries
	infoPolicy    = 4 // buf ← the policy's name, NUL-terminated; returns its length
	infoCPUs      = 5 // buf ← per-core thread dispatches, n entries; returns the core count
)

// gmposInfo is gmpos_info(req, buf, n); buf's elements are 8 bytes (counters) or 1 (names).
func gmposInfo[T uint64 | byte](req int, buf []T) (int, error) {
	r, _, e := syscall.Syscall(sysGmposInfo, uintptr(req), uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)))
	if e != 0 {
		return 0, e
	}
	return int(r), nil
}

// What the scheduler counters mean (sched/stats.go has the full story).
var schedMeaning = [sched.NumStats]string{
	sched.StatCtxSwitch:   "a core switched to another thread",
	sched.StatRunnextHit:  "…which came from runnext: readied by the thread before it, inherits its slice",
	sched.StatLRQHit:      "…which came from the core's own run queue",
	sched.StatGRQTake:     "a core took threads from the global run queue",
	sched.StatGRQTick:     "…forced by the every-61st-tick fairness check",
	sched.StatSteal:       "an idle core stole work from another core's queue",
	sched.StatStolenG:     "threads moved by those steals",
	sched.StatPreempt:     "a thread used up its 10 ms slice and was taken off its core",
	sched.StatSpinStart:   "a core started spinning, looking for work",
	sched.StatWakep:       "an idle core was woken because work appeared",
	sched.StatIdle:        "a core found nothing to run and went idle",
	sched.StatPoll:        "non-blocking polls of the network poller",
	sched.StatPollG:       "threads the poller made runnable",
	sched.StatSpawn:       "threads created",
	sched.StatReady:       "threads made runnable (woken)",
	sched.StatPark:        "threads that blocked (futex, network, sleep)",
	sched.StatYield:       "threads that gave up their core voluntarily",
	sched.StatGRQOverflow: "a full local queue spilled half of itself to the global queue",
	sched.StatExit:        "threads that exited",
}

// What the network counters mean (kernel/netabi/abi.go).
var netMeaning = [netabi.NumNetStats]string{
	netabi.NetRxFrames:   "Ethernet frames received from the NIC",
	netabi.NetRxBytes:    "their bytes",
	netabi.NetRxDrops:    "received frames dropped (bad device data, or nobody reading)",
	netabi.NetTxFrames:   "frames sent",
	netabi.NetTxBytes:    "their bytes",
	netabi.NetTxFull:     "sends refused: the transmit ring was full",
	netabi.NetIRQs:       "NIC interrupts",
	netabi.NetPolls:      "non-blocking polls of the NIC by the scheduler (idle cores, the tick)",
	netabi.NetPollHits:   "…that found completed work",
	netabi.NetReadyPoll:  "threads woken by the poller: a core looked before the interrupt came",
	netabi.NetReadyIRQ:   "threads woken by the NIC's interrupt handler",
	netabi.NetReadyStack: "threads woken by the network stack (socket data, replies)",
	netabi.NetIdleHalts:  "a core halted while threads waited on the network",
	netabi.NetRequests:   "socket calls carried out by the stack (round trips)",
	netabi.NetSockets:    "sockets open now",
	netabi.NetDevErrors:  "invalid data from the device",
}

// Counter is one row of the page.
type Counter struct {
	Name    string  `json:"name"`
	Total   uint64  `json:"total"`
	PerSec  float64 `json:"per_s"`
	Gauge   bool    `json:"gauge,omitempty"` // a level, not a count: no rate
	Meaning string  `json:"meaning,omitempty"`
}

// Stats is what the page and /stats show.
type Stats struct {
	Error      string    `json:"error,omitempty"` // not gmpos: why there is nothing else
	Policy     string    `json:"policy,omitempty"`
	Cores      []Counter `json:"cores,omitempty"`
	Sched      []Counter `json:"sched,omitempty"`
	Net        []Counter `json:"net,omitempty"`
	NetError   string    `json:"net_error,omitempty"`
	Interval   float64   `json:"interval_s"` // the rates are over this many seconds: since the previous request
	Goroutines int       `json:"goroutines"`
	GOMAXPROCS int       `json:"gomaxprocs"`
}

// sample is one reading of the kernel's counters.
type sample struct {
	at                time.Time
	cores, sched, net []uint64
}

// prev is the reading of the previous request (any client's): rates are deltas since then,
// so the server does no work while nobody watches.
var (
	mu   sync.Mutex
	prev sample
)

func read() (s sample, policy string, netErr, err error) {
	s.at = time.Now()
	name := make([]byte, 64)
	n, err := gmposInfo(infoPolicy, name)
	if err != nil {
		return s, "", nil, err
	}
	policy = string(name[:n])
	s.cores = make([]uint64, 256)
	if n, err = gmposInfo(infoCPUs, s.cores); err != nil {
		return s, "", nil, err
	}
	s.cores = s.cores[:min(n, len(s.cores))]
	s.sched = make([]uint64, sched.NumStats)
	if _, err = gmposInfo(infoSchedStat, s.sched); err != nil {
		return s, "", nil, err
	}
	s.net = make([]uint64, netabi.NumNetStats)
	if _, netErr = gmposInfo(netabi.InfoNetStats, s.net); netErr != nil {
		s.net = nil
	}
	return s, policy, netErr, nil
}

func collect() Stats {
	st := Stats{Goroutines: runtime.NumGoroutine(), GOMAXPROCS: runtime.GOMAXPROCS(0)}
	cur, policy, netErr, err := read()
	if errors.Is(err, syscall.ENOSYS) {
		st.Error = "This is not gmpos: the kernel has no gmpos_info system call (ENOSYS), so there is nothing to show. " +
			"Run the server under gmpos: build/gmpos run -smp 2 -hostfwd 8080:8080 ./examples/httpd"
		return st
	} else if err != nil {
		st.Error = "gmpos_info failed: " + err.Error()
		return st
	}
	st.Policy = policy
	if netErr != nil {
		st.NetError = "network counters not available from this kernel (" + netErr.Error() + ")"
	}
	mu.Lock()
	last := prev
	prev = cur
	mu.Unlock()
	dt := cur.at.Sub(last.at).Seconds()
	if last.at.IsZero() {
		dt = 0
	}
	st.Interval = dt
	rows := func(now, before []uint64, name func(int) string, meaning func(int) string) []Counter {
		out := make([]Counter, len(now))
		for i, v := range now {
			out[i] = Counter{Name: name(i), Total: v, Meaning: meaning(i)}
			if dt > 0 && i < len(before) && v >= before[i] {
				out[i].PerSec = float64(v-before[i]) / dt
			}
		}
		return out
	}
	none := func(int) string { return "" }
	st.Cores = rows(cur.cores, last.cores, func(i int) string { return "core " + strconv.Itoa(i) }, none)
	st.Sched = rows(cur.sched, last.sched, func(i int) string { return sched.Stat(i).String() }, func(i int) string { return schedMeaning[i] })
	st.Net = rows(cur.net, last.net, func(i int) string { return netabi.NetStatNames[i] }, func(i int) string { return netMeaning[i] })
	if len(st.Net) > netabi.NetSockets {
		st.Net[netabi.NetSockets].Gauge, st.Net[netabi.NetSockets].PerSec = true, 0
	}
	return st
}

//go:embed page.html
var pageHTML string

var page = template.Must(template.New("page").Funcs(template.FuncMap{
	"rate": func(c Counter) string {
		if c.Gauge {
			return "—"
		}
		return strconv.FormatFloat(c.PerSec, 'f', 1, 64)
	},
	"bar": func(c Counter, all []Counter) int { // per-core bar width, percent of the busiest core
		var most float64
		for _, o := range all {
			most = max(most, o.PerSec)
		}
		if most == 0 {
			return 0
		}
		return int(100 * c.PerSec / most)
	},
}).Parse(pageHTML))

func main() {
	addr := flag.String("addr", ":8080", "address to listen on")
	flag.Parse()
	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if err := page.Execute(w, collect()); err != nil {
			log.Print(err)
		}
	})
	http.HandleFunc("/stats", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.Encode(collect())
	})
	log.Printf("httpd: listening on %s", *addr)
	log.Fatal(http.ListenAndServe(*addr, nil))
}
