package marker

import (
	"math"
	"strings"
	"testing"
	"unicode/utf8"
)

// spell writes a marker from its digits spelled as '0', '1', '2', so tests state markers
// independently of Encode.
func spell(id, sum string) string {
	r := strings.NewReplacer("0", "\u200b", "1", "\u200c", "2", "\u200d")
	return "\u2060" + r.Replace(id) + r.Replace(sum) + "\u2060"
}

func TestCRC8CheckValue(t *testing.T) {
	if got := crc8([]byte("123456789")); got != 0xF4 {
		t.Fatalf("crc8(123456789) = %#x, want 0xf4", got)
	}
}

func TestEncodeLayout(t *testing.T) {
	// 5 is "12" in base 3; CRC-8 of 00 00 00 00 00 00 00 05 is 0x1b = 27 = "001000".
	want := spell(strings.Repeat("0", 39)+"12", "001000")
	if got := Encode(5); got != want {
		t.Fatalf("Encode(5) = %q, want %q", got, want)
	}
	for _, id := range []uint64{0, 1, 5, 1 << 53, math.MaxUint64} {
		m := Encode(id)
		if len(m) != markerLen || utf8.RuneCountInString(m) != 49 {
			t.Errorf("Encode(%d): %d bytes, %d runes", id, len(m), utf8.RuneCountInString(m))
		}
		if strings.Trim(m, "\u2060\u200b\u200c\u200d") != "" {
			t.Errorf("Encode(%d) holds a visible character: %q", id, m)
		}
	}
}

func TestDecode(t *testing.T) {
	const id = 1234567890123
	m := Encode(id)
	other := Encode(42)
	valid5 := Encode(5)
	badSum := spell(strings.Repeat("0", 39)+"12", "001001")
	overflow := spell(strings.Repeat("2", 41), "000000")

	tests := []struct {
		name    string
		text    string
		wantID  uint64
		cleaned string
		ok      bool
	}{
		{"at the end", "Hi, I saw your ad!" + m, id, "Hi, I saw your ad!", true},
		{"at the start", m + "Hi", id, "Hi", true},
		{"in the middle", "Hi" + m + " there", id, "Hi there", true},
		{"alone", m, id, "", true},
		{"between emoji, one a ZWJ sequence", "👍" + m + "👨\u200d👩\u200d👧", id, "👍👨\u200d👩\u200d👧", true},
		{"in RTL text", "مرحبا" + m + " שלום", id, "مرحبا שלום", true},
		{"across line breaks", "line 1\r\n" + m + "\nline 2", id, "line 1\r\n\nline 2", true},
		{"next to a stray word joiner", "a\u2060" + m + "\u2060b", id, "a\u2060\u2060b", true},
		{"next to invalid utf-8", "\xff\xe2\x81" + m + "\xe2", id, "\xff\xe2\x81\xe2", true},
		{"first valid of two wins, both removed", "a" + other + "b" + m, 42, "ab", true},
		{"back to back", m + other, id, "", true},
		{"bad checksum then valid", "a" + badSum + "b" + valid5, 5, "a" + badSum + "b", true},
		{"largest id", "x" + Encode(math.MaxUint64), math.MaxUint64, "x", true},
		{"zero id", Encode(0) + "x", 0, "x", true},

		{"no marker", "Hello 👋", 0, "Hello 👋", false},
		{"empty", "", 0, "", false},
		{"bad checksum", "Hi" + badSum, 0, "Hi" + badSum, false},
		{"id overflows uint64", "Hi" + overflow, 0, "Hi" + overflow, false},
		{"end sentinel lost", "Hi" + strings.TrimSuffix(m, sentinel), 0, "Hi" + strings.TrimSuffix(m, sentinel), false},
		{"start sentinel lost", strings.TrimPrefix(m, sentinel) + "Hi", 0, strings.TrimPrefix(m, sentinel) + "Hi", false},
		{"one digit lost", m[:30] + m[33:], 0, m[:30] + m[33:], false},
		{"one digit too many", m[:30] + "\u200b" + m[30:], 0, m[:30] + "\u200b" + m[30:], false},
		{"a visible character inside", m[:30] + "x" + m[30:], 0, m[:30] + "x" + m[30:], false},
		{"a digit replaced by U+FEFF", m[:30] + "\ufeff" + m[33:], 0, m[:30] + "\ufeff" + m[33:], false},
		{"a checksum digit replaced by U+FEFF", m[:132] + "\ufeff" + m[135:], 0, m[:132] + "\ufeff" + m[135:], false},
		{"only sentinels", "\u2060\u2060", 0, "\u2060\u2060", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gotID, cleaned, ok := Decode(tt.text)
			if gotID != tt.wantID || cleaned != tt.cleaned || ok != tt.ok {
				t.Errorf("Decode = (%d, %q, %v), want (%d, %q, %v)", gotID, cleaned, ok, tt.wantID, tt.cleaned, tt.ok)
			}
		})
	}
}

func TestEmbed(t *testing.T) {
	tests := []struct {
		name string
		text string
		id   uint64
		want string
	}{
		{"appends", "Olá! Quero saber mais", 7, "Olá! Quero saber mais" + Encode(7)},
		{"empty text", "", 7, Encode(7)},
		{"replaces an existing marker", "a" + Encode(1) + "b", 2, "ab" + Encode(2)},
		{"keeps an invalid marker", "a\u2060\u200bb", 2, "a\u2060\u200bb" + Encode(2)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Embed(tt.text, tt.id)
			if got != tt.want {
				t.Fatalf("Embed = %q, want %q", got, tt.want)
			}
			if id, _, ok := Decode(got); !ok || id != tt.id {
				t.Fatalf("Decode(Embed) = %d, %v", id, ok)
			}
		})
	}
}

func FuzzDecode(f *testing.F) {
	for _, seed := range []string{
		"", "hi", "👍👨\u200d👩\u200d👧", "مرحبا", "a\r\nb", "\xff\xfe", "\u2060", "\u2060\u200b\u2060",
		Encode(5), "x" + Encode(math.MaxUint64) + "y", spell(strings.Repeat("2", 41), "000000"),
	} {
		f.Add(seed, uint64(len(seed)))
	}
	f.Fuzz(func(t *testing.T, text string, id uint64) {
		gotID, cleaned, ok := Decode(text)
		if !ok && (gotID != 0 || cleaned != text) {
			t.Fatalf("untracked Decode(%q) = (%d, %q)", text, gotID, cleaned)
		}
		if ok && (len(text)-len(cleaned))%markerLen != 0 || ok && len(cleaned) == len(text) {
			t.Fatalf("Decode(%q) removed %d bytes", text, len(text)-len(cleaned))
		}
		if strings.Contains(text, sentinel) {
			return
		}
		gotID, cleaned, ok = Decode(Embed(text, id))
		if !ok || gotID != id || cleaned != text {
			t.Fatalf("Decode(Embed(%q, %d)) = (%d, %q, %v)", text, id, gotID, cleaned, ok)
		}
	})
}
