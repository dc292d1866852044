package api_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// swaggerParserEnv names the directory where scripts/swagger-parser.sh installed
// @apidevtools/swagger-parser; `make test` sets it. Unset, the test runs the script, which
// installs the package when missing and prints the directory.
const swaggerParserEnv = "MTK_SWAGGER_PARSER"

// validateWithSwaggerParser is the node program that validates the document at argv[2] with the
// swagger-parser installed under argv[1] (node -e leaves the program out of argv), printing the
// problems and exiting 1 on any.
const validateWithSwaggerParser = `
const SwaggerParser = require(process.argv[1] + '/node_modules/@apidevtools/swagger-parser');
SwaggerParser.validate(process.argv[2]).then(
  () => {},
  (err) => { console.error(err.message); process.exit(1); });
`

// TestOpenAPIDocumentPassesSwaggerParser validates the served document with a second,
// independent validator besides kin-openapi (openapi.TestDocumentIsValid): what client
// generators built on swagger-parser would read. It once refused the whole document for an
// info.license without url or identifier.
func TestOpenAPIDocumentPassesSwaggerParser(t *testing.T) {
	dir := os.Getenv(swaggerParserEnv)
	if dir == "" {
		install := exec.Command("../scripts/swagger-parser.sh")
		var stderr bytes.Buffer
		install.Stderr = &stderr
		out, err := install.Output()
		if err != nil {
			t.Fatalf("%s is not set and scripts/swagger-parser.sh failed (%v):\n%s", swaggerParserEnv, err, stderr.String())
		}
		dir = string(bytes.TrimSpace(out))
	}
	e := newEnv(t)
	r := e.do("GET", "/v3/openapi.json", nil)
	if r.Status != 200 {
		t.Fatalf("GET /v3/openapi.json: %d", r.Status)
	}
	doc := filepath.Join(t.TempDir(), "openapi.json")
	if err := os.WriteFile(doc, r.Body, 0o600); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd := exec.Command("node", "-e", validateWithSwaggerParser, "--", dir, doc)
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("swagger-parser refuses the document (%v):\n%s", err, stderr.String())
	}
}
