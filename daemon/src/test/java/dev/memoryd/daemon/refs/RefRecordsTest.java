package dev.memoryd.daemon.refs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The records of the refs API refuse what their contract rules out, in their constructors. */
class RefRecordsTest {
    @Test
    void newRef_needsAPathAndAtLeastOnePlacement() {
        assertThrows(NullPointerException.class, () -> new NewRef(null, null, null, List.of("users/a.md"), null));
        assertThrows(IllegalArgumentException.class, () -> new NewRef("a.txt", null, null, List.of(), null));
        List<String> withNull = new ArrayList<>();
        withNull.add(null);
        assertThrows(NullPointerException.class, () -> new NewRef("a.txt", null, null, withNull, null));
    }

    @Test
    void newRef_keepsItsPlacementsWhenTheCallersListChanges() {
        List<String> placed = new ArrayList<>(List.of("users/a.md"));
        NewRef r = new NewRef("a.txt", null, null, placed, null);
        placed.add("users/b.md");
        assertEquals(List.of("users/a.md"), r.placedOn());
    }

    @Test
    void finding_acceptsOnlyReferenceDriftKinds() {
        assertThrows(
                IllegalArgumentException.class,
                () -> new Reconciled.Finding(
                        "r1", ".slices/r1.slice", null, false, "text_edit", ".", "a.txt", null, 0, List.of()));
        assertEquals(
                RefStore.RENAMED,
                new Reconciled.Finding(
                                "r1",
                                ".slices/r1.slice",
                                null,
                                false,
                                RefStore.RENAMED,
                                ".",
                                "a.txt",
                                "b.txt",
                                1,
                                List.of())
                        .kind());
    }

    @Test
    void reconciled_refusesCountsThatCannotBe() {
        assertThrows(
                IllegalArgumentException.class, () -> new Reconciled(1, 2, List.of(), List.of(), List.of(), null, 0));
        assertThrows(
                IllegalArgumentException.class, () -> new Reconciled(-1, 0, List.of(), List.of(), List.of(), null, 0));
    }
}
