package toolschema_test

import (
	"fmt"

	"github.com/superbiz/superbiz/pkg/tools/toolschema"
)

// The business input of a tool that reads a host's disk usage: the schema
// the model receives comes from the struct the tool decodes.
func ExampleFor() {
	type diskInput struct {
		Host string `json:"host" jsonschema:"required,minLength=1,maxLength=253" jsonschema_description:"the host name, e.g. db-1"`
		Unit string `json:"unit,omitempty" jsonschema:"enum=percent,enum=bytes"`
	}
	fmt.Println(string(toolschema.For[diskInput]()))
	// Output:
	// {"properties":{"host":{"type":"string","maxLength":253,"minLength":1,"description":"the host name, e.g. db-1"},"unit":{"type":"string","enum":["percent","bytes"]}},"additionalProperties":false,"type":"object","required":["host"]}
}
