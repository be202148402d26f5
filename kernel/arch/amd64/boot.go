package amd64

// Multiboot hand-off, copied here by entry64 from the fixed addresses entry32 used.
var (
	mbMagic uint32
	mbInfo  uint32
)

func entry32()
func entry64()
