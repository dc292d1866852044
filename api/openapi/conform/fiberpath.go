package conform

import "strings"

// fiberPath is the documented path that Fiber routes path to, matching as Fiber does without
// case and ignoring a final slash; the path's parameters keep their text.
func (c *Checker) fiberPath(path string) (string, bool) {
	got := strings.Split(strings.TrimSuffix(path, "/"), "/")
	for template := range c.doc.Paths.Map() {
		want := strings.Split(template, "/")
		if len(want) != len(got) {
			continue
		}
		out := make([]string, len(got))
		for i := range want {
			switch {
			case strings.HasPrefix(want[i], "{") && got[i] != "":
				out[i] = got[i]
			case strings.EqualFold(want[i], got[i]):
				out[i] = want[i]
			default:
				out = nil
			}
			if out == nil {
				break
			}
		}
		if out != nil {
			return strings.Join(out, "/"), true
		}
	}
	return "", false
}
