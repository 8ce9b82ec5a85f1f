/** JSON utilities shared by every module: {@link dev.memoryd.grammar.json.Jcs}, RFC 8785 canonical JSON. */
package dev.memoryd.grammar.json;
