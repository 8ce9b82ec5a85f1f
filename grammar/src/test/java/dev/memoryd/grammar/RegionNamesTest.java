package dev.memoryd.grammar;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.memoryd.grammar.human.RegionNames;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RegionNamesTest {
    private static final String TEXT = "# Sam\n\n## Current Focus\n<!-- @anchor: current-focus v1 -->\n\nF.\n\n"
            + "## Loose Notes\n\nNo anchor.\n\n## Loose Notes\n\nTwice.\n";

    @Test
    void aHeadingNamesItsRegion_asAnAnchorOrRegionKeyDoes() {
        assertEquals(Optional.of("current-focus"), RegionNames.key("Current Focus", TEXT));
        assertEquals(Optional.of("current-focus"), RegionNames.key("current-focus", TEXT));
        assertEquals(Optional.of("#Loose Notes"), RegionNames.key("Loose Notes", TEXT), "no anchor: # plus heading");
        assertEquals(Optional.of("#Loose Notes~2"), RegionNames.key("#Loose Notes~2", TEXT));
        assertEquals(Optional.of("_head"), RegionNames.key("_head", TEXT));
    }

    @Test
    void aNameNoTextHas_isEmpty_andLaterTextsAreLookedIn() {
        assertEquals(
                Optional.empty(), RegionNames.key("current focus", TEXT), "headings match exactly, as read and write");
        assertEquals(Optional.empty(), RegionNames.key("Nope", TEXT, null));
        assertEquals(Optional.of("current-focus"), RegionNames.key("Current Focus", null, "# X\n\n## Y\n", TEXT));
    }
}
