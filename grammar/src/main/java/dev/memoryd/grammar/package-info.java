/** memoryd grammar. */
package dev.memoryd.grammar;
