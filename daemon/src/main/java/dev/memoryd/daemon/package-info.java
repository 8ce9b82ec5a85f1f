/** memoryd daemon. */
package dev.memoryd.daemon;
