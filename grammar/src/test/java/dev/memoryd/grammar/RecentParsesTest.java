package dev.memoryd.grammar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

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

    /** A file of about {@code chars} characters, told apart by {@code n}. */
    private static String large(int n, int chars) {
        String item = "- an entry of a journal kept in one long file " + n + "\n";
        return "# A file " + n + "\n\n## List\n\n" + item.repeat(chars / item.length());
    }

    @Test
    void largeTexts_areKeptUpToACharacterBudget_soOldVersionsOfALargeFileGo_andTheLatestStays() {
        int size = 1 << 20;
        String first = large(0, size);
        MemoryDocument firstDoc = MemoryDocument.parse(first);
        assertSame(firstDoc, MemoryDocument.parse(first), "kept while it is recent");
        String last = first;
        for (int n = 1; n <= 20; n++) { // 20 Mi characters after it: more than the budget
            last = large(n, size);
            MemoryDocument.parse(last);
            long[] held = RecentParses.held();
            assertTrue(held[1] <= RecentParses.MAX_CHARS, "kept " + held[1] + " chars in " + held[0] + " texts");
        }
        assertNotSame(firstDoc, MemoryDocument.parse(new String(first.toCharArray())), "the oldest went");
        MemoryDocument lastDoc = MemoryDocument.parse(last);
        assertSame(lastDoc, MemoryDocument.parse(new String(last.toCharArray())), "the latest stays");
    }

    @Test
    void aTextOverTheWholeBudget_isStillKept_aloneIfNeedBe() {
        String huge = large(99, (int) RecentParses.MAX_CHARS + 1000);
        MemoryDocument d = MemoryDocument.parse(huge);
        assertSame(d, MemoryDocument.parse(huge));
        assertTrue(RecentParses.held()[0] >= 1);
        assertTrue(RecentParses.held()[1] >= huge.length());
    }
}
