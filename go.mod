module gmpos

go 1.26.4

require (
	github.com/usbarmory/tamago v1.26.5
	golang.org/x/arch v0.32.0
)
