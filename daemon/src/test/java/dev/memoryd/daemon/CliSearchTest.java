package dev.memoryd.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** {@code memoryd search} through the CLI: hits exit 0; no hit says so on stderr and exits 1, as grep does. */
class CliSearchTest extends ServedRootTest {

    private Cli.Run search(String... args) {
        String[] withCommand = new String[args.length + 1];
        withCommand[0] = "search";
        System.arraycopy(args, 0, withCommand, 1, args.length);
        return Cli.run(root.cliArgs(withCommand));
    }

    @Test
    void search_withHits_printsThemAndExitsZero() {
        Cli.Run r = search("teacher");
        assertEquals(0, r.code(), r.toString());
        assertTrue(r.out().contains("users/sam/parts/inner-critic/profile.md"), r.toString());
        assertEquals("", r.err(), r.toString());
    }

    @Test
    void search_withNoHit_saysSoOnStderr_andExitsOne() {
        Cli.Run r = search("nothingmatches");
        assertEquals(1, r.code(), r.toString());
        assertEquals("", r.out(), r.toString());
        assertEquals("memoryd: no match for 'nothingmatches'\n", r.err(), r.toString());
    }

    @Test
    void search_withNoHit_asJson_printsTheEmptyResult_andExitsOne() throws Exception {
        Cli.Run r = search("nothingmatches", "--json");
        assertEquals(1, r.code(), r.toString());
        assertEquals(0, TestRoot.json(r.out()).get("hits").size(), r.toString());
    }
}
