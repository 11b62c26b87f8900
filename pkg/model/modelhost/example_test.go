package modelhost_test

import (
	"fmt"

	"github.com/superbiz/superbiz/pkg/model/modelhost"
)

// A host as OLLAMA_HOST would be written: the scheme and port are filled
// in, and the password never shows outside Reveal.
func ExampleParse() {
	u, err := modelhost.Parse("ops:s3cret@gpu-1")
	if err != nil {
		panic(err)
	}
	fmt.Println(u)
	fmt.Println(u.Reveal())
	_, err = modelhost.Parse("ftp://gpu-1")
	fmt.Println(err)
	// Output:
	// http://ops:[REDACTED]@gpu-1:11434
	// http://ops:s3cret@gpu-1:11434
	// scheme "ftp" not supported: use http:// or https://
}
