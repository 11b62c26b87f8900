// Package secret is an internal package the public one must not name.
package secret

// Key is an internal type.
type Key struct{ V string }

// Getter is an internal interface.
type Getter interface{ Get() Key }
