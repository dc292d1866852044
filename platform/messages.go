package platform

import (
	"context"
	"math"

	"mtk/platform/marker"
	"mtk/platform/utm"
)

// MaxDecodeMessages is the most messages one decode call takes.
const MaxDecodeMessages = 100

// DecodedMessage is a chat message with what its tracking marker says. An untracked message (no
// valid marker, or the click of another workspace) has DecodedText equal to Text and nulls.
type DecodedMessage struct {
	Text           string      `json:"text"`
	DecodedText    string      `json:"decoded_text"`
	DecodedID      *int64      `json:"decoded_id"`
	Params         *utm.Params `json:"params"`
	TrackingLinkID *string     `json:"tracking_link_id"`
	// SelectedTarget is null in every shape the spec gives.
	SelectedTarget any `json:"selected_target"`
}

// DecodeMessages decodes texts, in order, against the clicks of a workspace's tracking links.
func (s *Links) DecodeMessages(ctx context.Context, workspaceID string, texts []string) ([]DecodedMessage, error) {
	out := make([]DecodedMessage, len(texts))
	cleaned := make([]string, len(texts))
	found := make([]int64, len(texts)) // each message's click id; 0 for none (click ids start at 1)
	var clickIDs []int64
	for i, text := range texts {
		out[i] = DecodedMessage{Text: text, DecodedText: text}
		if id, clean, ok := marker.Decode(text); ok && id > 0 && id <= math.MaxInt64 {
			found[i], cleaned[i] = int64(id), clean
			clickIDs = append(clickIDs, int64(id))
		}
	}
	if len(clickIDs) == 0 {
		return out, nil
	}
	type click struct {
		linkID string
		utm    utm.Params
	}
	clicks := map[int64]click{}
	rows, err := s.pool.Query(ctx, `SELECT k.id, k.link_id, k.utm_source, k.utm_medium, k.utm_campaign, k.utm_content, k.utm_term
		FROM link_clicks k JOIN tracking_links l ON l.id = k.link_id WHERE k.id = ANY($1) AND l.workspace_id = $2`,
		clickIDs, workspaceID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var c click
		if err := rows.Scan(&id, &c.linkID, &c.utm.Source, &c.utm.Medium, &c.utm.Campaign, &c.utm.Content, &c.utm.Term); err != nil {
			return nil, err
		}
		clicks[id] = c
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for i, id := range found {
		c, ok := clicks[id]
		if id == 0 || !ok {
			continue
		}
		clickID, linkID, params := id, c.linkID, c.utm
		out[i].DecodedText, out[i].DecodedID, out[i].TrackingLinkID, out[i].Params = cleaned[i], &clickID, &linkID, &params
	}
	return out, nil
}
