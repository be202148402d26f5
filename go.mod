module gmpos

go 1.26.4

require (
	github.com/diskfs/go-diskfs v1.7.0
	github.com/google/pprof v0.0.0-20261016150608-1facf8f91b50
	github.com/usbarmory/tamago v1.26.5
	golang.org/x/arch v0.32.0
)

require (
	github.com/elliotwutingfeng/asciiset v0.0.0-20230602022725-51bbb787efab // indirect
	github.com/google/btree v1.1.2 // indirect
	golang.org/x/exp v0.0.0-20250711185948-6ae5c78190dc // indirect
	golang.org/x/sys v0.43.0 // indirect
	golang.org/x/time v0.15.0 // indirect
	gvisor.dev/gvisor v0.0.0-20260905035102-160fafc42237
)
