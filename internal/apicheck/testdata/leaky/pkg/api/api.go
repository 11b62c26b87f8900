// Package api plants one leak of each kind the checker must find, beside
// internal uses it must let pass.
package api

import "example.com/leaky/internal/secret"

// Alias leaks through an alias.
type Alias = secret.Key

// Defined leaks through the type it is made of.
type Defined []secret.Key

// Config leaks through an exported field and an embedded one.
type Config struct {
	Key *secret.Key
	secret.Getter
	hidden secret.Key // unexported: fine
}

// Tool leaks through a method.
type Tool struct{}

// Open leaks through a result inside a map.
func (Tool) Open() map[string]secret.Key { return nil }

// close is unexported: fine.
func (Tool) close(secret.Key) {}

// Run leaks through a parameter of a func-typed parameter.
func Run(f func(secret.Key)) {}

// Fine names no internal type although it uses one inside.
func Fine() string { return secret.Key{V: "x"}.V }

// Default leaks through a variable.
var Default secret.Key

// Generic leaks through a constraint.
func Generic[T interface{ ~[]secret.Key }](T) {}

// Box is a public generic type; Boxed leaks through its type argument.
type Box[T any] struct{ V T }

// Boxed leaks through an instantiation.
var Boxed Box[secret.Key]

// Anon leaks through an exported field of an anonymous struct.
var Anon struct{ K secret.Key }

// Iface leaks through a method of an interface.
type Iface interface{ Key() secret.Key }

var _ = Config{}.hidden
