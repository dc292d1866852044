package api

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/gofiber/fiber/v2"

	"mtk/internal/apperr"
	"mtk/platform"
)

// decodeInput is the body of POST /v3/tracking/messages/decode. Items are read one by one so
// that a problem names its index.
type decodeInput struct {
	Messages []json.RawMessage `json:"messages"`
}

type messageInput struct {
	Text *string `json:"text"`
}

// texts validates the body and returns the messages' texts in order.
func (in decodeInput) texts() ([]string, error) {
	switch n := len(in.Messages); {
	case in.Messages == nil:
		return nil, apperr.Missing("messages is required.", "messages: required")
	case n == 0 || n > platform.MaxDecodeMessages:
		return nil, apperr.Invalid(fmt.Sprintf("Send 1 to %d messages.", platform.MaxDecodeMessages),
			fmt.Sprintf("messages: %d items; at least 1 and at most %d", n, platform.MaxDecodeMessages))
	}
	texts := make([]string, len(in.Messages))
	var details []string
	invalid := false
	for i, raw := range in.Messages {
		var m messageInput
		err := json.Unmarshal(raw, &m)
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &typ) && typ.Field != "":
			details = append(details, fmt.Sprintf("messages[%d].%s: expected %s, got %s", i, typ.Field, jsonKind(typ.Type), typ.Value))
			invalid = true
		case err != nil:
			details = append(details, fmt.Sprintf("messages[%d]: expected an object with a text string", i))
			invalid = true
		case m.Text == nil:
			details = append(details, fmt.Sprintf("messages[%d].text: required", i))
		default:
			texts[i] = *m.Text
		}
	}
	switch {
	case invalid:
		return nil, apperr.Invalid("Every message must be an object with a text string.", details...)
	case len(details) > 0:
		return nil, apperr.Missing("Every message needs a text.", details...)
	}
	return texts, nil
}

// decodeMessages finds the tracking marker of each message, and fires the workspace's
// whatsapp_keyword_message triggers whose keyword a message holds: 200 {messages: [...]} in order.
func (s *server) decodeMessages(c *fiber.Ctx) error {
	var in decodeInput
	if err := decodeJSON(c, &in); err != nil {
		return err
	}
	texts, err := in.texts()
	if err != nil {
		return err
	}
	out, err := s.Links.DecodeMessages(c.UserContext(), workspaceOf(c), texts)
	if err != nil {
		return err
	}
	if err := s.Fires.Messages(c.UserContext(), workspaceOf(c), out); err != nil {
		return err
	}
	return c.JSON(fiber.Map{"messages": out})
}
