package config

import _ "embed" // the starter file

//go:embed starter.toml
var starter string

// Starter is the commented starting file `superbiz config init` writes: the
// defaults of [model] and [budget] and an example of every source, commented out.
func Starter() string { return starter }
