// Package utm finds an event's UTM parameters and links them to a synced ad entity.
//
// # Where UTM comes from (Extract)
//
// Three sources are read in this order, and the first one that holds any non-empty utm_* value
// wins as a whole set; values are never mixed across sources, so a campaign from the body is never
// paired with a content from a stale cookie:
//
//  1. the body's `utm` member (utm_source, utm_medium, utm_campaign, utm_content, utm_term);
//  2. the query string of `page.url`; for a hash-routed page (`https://x.com/#/p?utm_source=...`)
//     the query inside the fragment is read when the main query has no utm_* value;
//  3. the cookies: first `_mtk_utm`, whose value is a URL query string
//     (`utm_source=fb&utm_campaign=Sale%7C123`, itself URL-encoded or not), and, when that holds
//     no utm_* value, the five cookies named `utm_source` ... `utm_term`.
//
// In a query string (and in `_mtk_utm`) keys match without case (`UTM_Source`), and a repeated key
// keeps its first non-empty value.
//
// Every value, whatever its source, is URL-decoded once, leniently: `%XX` is decoded, `+` is a
// space, a malformed `%` escape is kept as written, and bytes that are not UTF-8 are dropped. Then
// surrounding spaces are trimmed. So a body value copied from a link (`Summer+Sale%7C123`) reads
// the same as the link itself; a literal `+` or `%` in a body value must be sent as `%2B` / `%25`.
//
// # The naming convention (Parse)
//
//	utm_campaign = <campaign name>|<campaign id>
//	utm_medium   = <ad set name>|<ad set id>
//	utm_content  = <ad name>|<ad id>
//
// The id is what follows the LAST `|`, so names may contain `|`. Name and id are trimmed. A value
// without `|`, or whose id part is empty (`Sale|`), is a bare name. utm_source and utm_term are
// carried along but play no part in attribution.
//
// # Attribution (Resolve)
//
// Each level's reference is looked up among the project's synced entities:
//   - an id is looked up by id only; the name beside it is then ignored. An id that matches no
//     entity does not attribute that level (it never falls back to the name);
//   - a bare name is looked up by name, compared without case and surrounding spaces; it resolves
//     only if exactly one entity of that level in the project has it;
//   - an id matching several entities (two networks using the same id) is ambiguous like a name,
//     and does not resolve.
//
// The attributed entity is the most specific resolved level (ad, then ad set, then campaign)
// whose ancestors all exist (an ad's ad set and campaign, looked up by ParentID within the same
// source and connection) and agree with every less specific level that also resolved. A level
// that fails these checks is skipped and the next less specific one is tried. The result carries
// the whole chain up to the campaign; levels below the attributed one are empty.
package utm
