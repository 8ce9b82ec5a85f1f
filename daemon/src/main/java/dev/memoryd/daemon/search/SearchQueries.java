package dev.memoryd.daemon.search;

import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.index.Term;
import org.apache.lucene.queryparser.classic.MultiFieldQueryParser;
import org.apache.lucene.queryparser.classic.ParseException;
import org.apache.lucene.queryparser.classic.QueryParser;
import org.apache.lucene.search.Query;

/**
 * A search's query: Lucene's classic syntax over a document's text, title and section, all terms
 * required, restricted to the documents of one provenance source or (without one) kept from them.
 *
 * <p>Stateless; safe from any thread.
 */
final class SearchQueries {
    private SearchQueries() {}

    /**
     * The query for {@code q}, filtered by {@code source} when not null.
     *
     * @throws SearchIndex.BadQuery when Lucene cannot parse or compile it
     */
    static Query parse(String q, String source, Analyzer analyzer) throws SearchIndex.BadQuery {
        Query query;
        try {
            MultiFieldQueryParser p = new MultiFieldQueryParser(new String[] {"text", "title", "section"}, analyzer);
            p.setDefaultOperator(QueryParser.Operator.AND);
            query = p.parse(q);
        } catch (ParseException e) {
            throw new SearchIndex.BadQuery(
                    "cannot parse query: " + e.getMessage().split("\n")[0], e);
        } catch (org.apache.lucene.util.automaton.TooComplexToDeterminizeException | IllegalArgumentException e) {
            // A wildcard or regular expression too complex to compile, or one Lucene's syntax refuses.
            throw new SearchIndex.BadQuery(
                    "query too complex: " + e.getMessage().split("\n")[0] + " (use fewer wildcards or a shorter term)",
                    e);
        }
        org.apache.lucene.search.BooleanQuery.Builder b = new org.apache.lucene.search.BooleanQuery.Builder()
                .add(query, org.apache.lucene.search.BooleanClause.Occur.MUST);
        if (source == null) {
            b.add(
                    new org.apache.lucene.search.TermQuery(new Term(SearchDocs.BY_SOURCE, "1")),
                    org.apache.lucene.search.BooleanClause.Occur.MUST_NOT);
        } else {
            b.add(
                    new org.apache.lucene.search.TermQuery(new Term(SearchDocs.SOURCE, source)),
                    org.apache.lucene.search.BooleanClause.Occur.FILTER);
        }
        query = b.build();
        return query;
    }
}
