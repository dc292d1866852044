package api

import (
	"bytes"
	"compress/gzip"
	"strings"

	"github.com/gofiber/fiber/v2"

	"mtk/internal/apperr"
)

// tagCacheControl lets browsers and CDNs keep a container's script for five minutes: a trigger
// change reaches the pages within that, and a revalidation after it costs a 304.
const tagCacheControl = "public, max-age=300"

// tagScript answers GET /t/{container}.js, the container's script (package tag), without a
// credential: gzipped when the browser takes it, 304 when its ETag still holds. A stopped or
// unknown container is a 404 envelope, without JavaScript.
func (s *server) tagScript(c *fiber.Ctx) error {
	ref, ok := strings.CutSuffix(c.Params("script"), ".js")
	if !ok || ref == "" {
		return apperr.NotFound("Container not found.")
	}
	sc, err := s.Scripts.Script(c.UserContext(), ref)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderCacheControl, tagCacheControl)
	c.Set(fiber.HeaderETag, sc.ETag)
	c.Set(fiber.HeaderVary, fiber.HeaderAcceptEncoding)
	c.Set(fiber.HeaderXContentTypeOptions, "nosniff")
	if etagMatches(c.Get(fiber.HeaderIfNoneMatch), sc.ETag) {
		return c.SendStatus(fiber.StatusNotModified)
	}
	c.Set(fiber.HeaderContentType, "text/javascript; charset=utf-8")
	body := sc.Body
	if strings.Contains(c.Get(fiber.HeaderAcceptEncoding), "gzip") {
		var b bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression) //nolint:errcheck // a valid level
		if _, err := zw.Write(body); err != nil {
			return err
		}
		if err := zw.Close(); err != nil {
			return err
		}
		body = b.Bytes()
		c.Set(fiber.HeaderContentEncoding, "gzip")
	}
	return c.Send(body)
}

// etagMatches reports whether an If-None-Match header names etag (or is *).
func etagMatches(header, etag string) bool {
	for _, v := range strings.Split(header, ",") {
		v = strings.TrimPrefix(strings.TrimSpace(v), "W/")
		if v == etag || v == "*" {
			return true
		}
	}
	return false
}
