// Package failpkg has one passing and one failing test, for `gmpos test`'s verdict and status.
package failpkg

// Double doubles.
func Double(x int) int { return 2 * x }
