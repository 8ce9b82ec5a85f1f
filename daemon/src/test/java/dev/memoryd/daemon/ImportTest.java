package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.memoryd.daemon.rpc.JsonRpc;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** {@code memoryd import DIR} and {@code notes.import} against a served example root. */
class ImportTest extends ServedRootTest {
    private Path notes() throws Exception {
        Path d = tmp.resolve("notes");
        Files.createDirectories(d.resolve("trips"));
        Files.createDirectories(d.resolve(".obsidian"));
        Files.writeString(d.resolve("groceries.md"), "Oat milk, rye bread\nand coffee beans.\n");
        Files.writeString(d.resolve("trips/lisbon.md"), "Trams before nine; *pasteis* at Belem.\n");
        Files.writeString(
                d.resolve("trips/porto.md"),
                "Day one: the river.\n\n\nDay two: the tiles,\nthen the train.\n\n### Costs\nLow.\n");
        Files.writeString(d.resolve("titled.md"), "# My title\nSome text.\n\n## Part two\n#hashtag, not a heading\n");
        Files.writeString(d.resolve("deep.md"), "# Top\n\n#### Four\n\n###### Six\n");
        Files.writeString(d.resolve("empty.md"), "  \n");
        Files.write(d.resolve("latin1.md"), new byte[] {'c', 'a', 'f', (byte) 0xe9});
        Files.writeString(d.resolve("readme.txt"), "not a note");
        Files.writeString(d.resolve(".obsidian/workspace.md"), "hidden");
        return d;
    }

    @Test
    void importDir_recordsEachNoteAsItsOwnCommit_nestsItsHeadings_refusesWhatTheGrammarCannotTake_andCarriesOn()
            throws Exception {
        String head = root.git("rev-parse", "HEAD").strip();
        Cli.Run r = Cli.run(root.cliArgs("import", notes().toString(), "--user", "sam", "--json"));
        assertEquals(1, r.code(), r.toString()); // some were refused
        JsonNode res = JsonRpc.MAPPER.readTree(r.out());
        assertEquals(7, res.get("files").asInt(), r.out()); // .txt and the hidden directory are not notes
        assertEquals(4, res.get("imported").asInt(), r.out());
        assertEquals(3, res.get("refused").asInt(), r.out());
        String refusals = res.get("results").toString();
        assertTrue(
                refusals.contains("deep: its headings run from H1 (line 1) to H6 (line 5): nested under the note's H3"),
                refusals);
        assertTrue(refusals.contains("empty: the note is empty"), refusals);
        assertTrue(refusals.contains("latin1: not UTF-8 text"), refusals);

        assertEquals("4", root.git("rev-list", "--count", head + "..HEAD").strip()); // one commit per note
        JsonNode drafts = ok("read", "{\"path\":\"users/sam/notes.md\",\"section\":\"Drafts\"}");
        String text = drafts.get("content").asText();
        assertTrue(text.contains("### groceries\nOat milk, rye bread\nand coffee beans."), text);
        assertTrue(text.contains("### trips/lisbon\nTrams before nine"), text);
        // paragraphs survive (a run of blank lines made one), and stay in the one commit of their note;
        // the note's own headings sit under its H3, the highest at H4, the others as far below it
        assertTrue(
                text.contains(
                        "### trips/porto\nDay one: the river.\n\nDay two: the tiles,\nthen the train.\n\n#### Costs\nLow."),
                text);
        assertTrue(
                text.contains("### titled\n#### My title\nSome text.\n\n##### Part two\n#hashtag, not a heading"),
                text);
        assertFalse(text.contains("Top"), text);
        JsonNode sections = ok("read", "{\"path\":\"users/sam/notes.md\"}").get("sections");
        assertEquals(5, sections.size(), sections.toString()); // no note's heading became a section
        assertEquals(0, Cli.run(root.cliArgs("lint")).code());
    }

    /**
     * A note larger than one request ended the whole import with "too_large" (the notes after it
     * not imported), and so did two notes of text outside ASCII under the part's character budget
     * but over the request's byte limit together.
     */
    @Test
    void aNoteTooLargeForOneRequest_isRefusedAlone_andPartsStayUnderTheByteLimit() throws Exception {
        Path d = tmp.resolve("large-notes");
        Files.createDirectories(d);
        Files.writeString(d.resolve("a-small.md"), "before\n");
        Files.writeString(d.resolve("b-huge.md"), "x".repeat(1_200_000) + "\n");
        String wide = "\u8a18\u61b6".repeat(90_000); // 180,000 characters, 540,000 bytes of UTF-8
        Files.writeString(d.resolve("c-wide.md"), wide + "\n");
        Files.writeString(d.resolve("d-wide.md"), wide + "\n");
        Files.writeString(d.resolve("e-small.md"), "after\n");
        Cli.Run r = Cli.run(root.cliArgs(
                "import", d.toString(), "--user", "sam", "--override-rationale", "a bulk import", "--json"));
        assertEquals(
                1,
                r.code(),
                r.toString().substring(0, Math.min(2000, r.toString().length())));
        JsonNode res = JsonRpc.MAPPER.readTree(r.out());
        assertEquals(4, res.get("imported").asInt(), res.toString());
        assertEquals(1, res.get("refused").asInt(), res.toString());
        JsonNode huge = res.get("results").get(1);
        assertEquals("too_large", huge.path("reason").asText(), huge.toString());
        assertTrue(huge.path("message").asText().startsWith("b-huge: "), huge.toString());
        String text = ok("read", "{\"path\":\"users/sam/notes.md\",\"section\":\"Drafts\"}")
                .get("content")
                .asText();
        assertTrue(text.contains("### d-wide\n" + wide), "the second wide note");
        assertTrue(text.endsWith("### e-small\nafter") || text.contains("### e-small\nafter\n"), "the note after");
        assertFalse(text.contains("xxxxxxxxxx"), "the huge note");
    }

    @Test
    void aNoteWithACodeBlock_keepsItWhole_blankLinesAndHeadingsInItToo_andOneLeftOpenIsRefused() throws Exception {
        Path d = tmp.resolve("code-notes");
        Files.createDirectories(d);
        String code = "```sh\nmake build\n\n\n## not a heading\nmake test\n```";
        Files.writeString(d.resolve("build.md"), "How to build:\n\n" + code + "\n\nDone.\n");
        Files.writeString(d.resolve("open.md"), "Start:\n```\nnever closed\n");
        Files.writeString(d.resolve("tilde.md"), "~~~\n# in code\n~~~\n");
        String head = root.git("rev-parse", "HEAD").strip();
        // Focus is followed by other sections: a fence cut at a blank line would swallow them.
        Cli.Run r = Cli.run(root.cliArgs("import", d.toString(), "--user", "sam", "--section", "Focus", "--json"));
        assertEquals(1, r.code(), r.toString());
        JsonNode res = JsonRpc.MAPPER.readTree(r.out());
        assertEquals(2, res.get("imported").asInt(), r.out());
        String refusals = res.get("results").toString();
        assertTrue(refusals.contains("open: line 2 opens a code fence"), refusals);
        assertEquals("2", root.git("rev-list", "--count", head + "..HEAD").strip());

        String focus = ok("read", "{\"path\":\"users/sam/notes.md\",\"section\":\"Focus\"}")
                .get("content")
                .asText();
        assertTrue(focus.contains("### build\nHow to build:\n\n" + code + "\n\nDone."), focus);
        assertTrue(focus.contains("### tilde\n~~~\n# in code\n~~~"), focus);
        JsonNode sections = ok("read", "{\"path\":\"users/sam/notes.md\"}").get("sections");
        assertEquals(
                "[Inbox, Focus, Parking Lot, Research, Drafts]",
                java.util.stream.StreamSupport.stream(sections.spliterator(), false)
                        .map(x -> x.get("name").asText())
                        .toList()
                        .toString());
        assertEquals(0, Cli.run(root.cliArgs("lint")).code());
    }

    @Test
    void frontmatterAndUnderlinedHeadings_renderAsTheyDidInTheNote_andARefusalNamesTheFilesLine() throws Exception {
        Path d = tmp.resolve("vault");
        Files.createDirectories(d);
        Files.writeString(
                d.resolve("lisbon.md"), "---\ntags: [travel]\n---\nLisbon\n======\n\nTrams.\n\nFood\n----\nPasteis.\n");
        Files.writeString(d.resolve("open.md"), "\n\nStart:\n```\nnever closed\n");
        Cli.Run r = Cli.run(root.cliArgs("import", d.toString(), "--user", "sam", "--section", "Focus", "--json"));
        assertEquals(1, r.code(), r.toString());
        String refusals = JsonRpc.MAPPER.readTree(r.out()).get("results").toString();
        assertTrue(
                refusals.contains("open: line 4 opens a code fence"), refusals); // the file's line, blank ones counted
        String focus = ok("read", "{\"path\":\"users/sam/notes.md\",\"section\":\"Focus\"}")
                .get("content")
                .asText();
        assertTrue(
                focus.contains(
                        "### lisbon\n```yaml\ntags: [travel]\n```\n#### Lisbon\n\nTrams.\n\n##### Food\nPasteis."),
                focus);
        JsonNode sections = ok("read", "{\"path\":\"users/sam/notes.md\"}").get("sections");
        assertEquals(5, sections.size(), sections.toString());
        assertEquals(0, Cli.run(root.cliArgs("lint")).code());
    }

    @Test
    void aMissingUserOrSection_failsTheCall_beforeAnythingIsWritten() throws Exception {
        String head = root.git("rev-parse", "HEAD").strip();
        JsonNode noUser =
                root.call("notes.import", "{\"user\":\"nobody\",\"notes\":[{\"name\":\"a\",\"text\":\"x\"}]}");
        assertEquals("not_found", noUser.get("error").get("data").get("reason").asText(), noUser.toString());
        JsonNode noSection = root.call(
                "notes.import",
                "{\"user\":\"sam\",\"section\":\"Nowhere\",\"notes\":[{\"name\":\"a\",\"text\":\"x\"}]}");
        assertEquals(
                "unknown_section",
                noSection.get("error").get("data").get("reason").asText(),
                noSection.toString());
        JsonNode badShape = root.call("notes.import", "{\"user\":\"sam\",\"notes\":[{\"name\":\"a\"}]}");
        assertEquals(
                "invalid_request",
                badShape.get("error").get("data").get("reason").asText(),
                badShape.toString());
        assertEquals(head, root.git("rev-parse", "HEAD").strip());
    }

    @Test
    void aListSection_isRefusedPerNote_withTheWritersReason() throws Exception {
        JsonNode r = ok(
                "notes.import",
                "{\"user\":\"sam\",\"section\":\"Inbox\",\"notes\":[{\"name\":\"a\",\"text\":\"one line\"}]}");
        assertEquals(0, r.get("imported").asInt(), r.toString());
        assertEquals("invalid_op", r.get("results").get(0).get("reason").asText(), r.toString());
    }
}
