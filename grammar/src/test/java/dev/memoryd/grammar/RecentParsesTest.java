package dev.memoryd.grammar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;

class RecentParsesTest {

    private static String text(char middle) {
        String half = "- an item of a long list\n".repeat(400);
        return "# A file\n\n## List\n\n" + half + "- " + middle + "\n" + half;
    }

    @Test
    void textsAlikeButForOneCharacterOffTheSample_eachGetTheirOwnParse() {
        String a = text('a');
        String b = text('b');
        assertEquals(RecentParses.sampledHash(a), RecentParses.sampledHash(b), "the sample does not tell them apart");
        MemoryDocument da = MemoryDocument.parse(a);
        MemoryDocument db = MemoryDocument.parse(b);
        assertNotSame(da, db);
        assertEquals(a, da.text());
        assertEquals(b, db.text());
        assertSame(da, MemoryDocument.parse(a));
    }

    @Test
    void anEqualTextReadAgain_findsTheKeptParse() {
        String a = text('c');
        MemoryDocument d = MemoryDocument.parse(a);
        String again = new String(a.toCharArray()); // another instance, as a file read again gives
        assertNotSame(a, again);
        assertSame(d, MemoryDocument.parse(again));
    }
}
