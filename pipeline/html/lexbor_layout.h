/*
 * The memory layout of the few lexbor structs that pipeline/lexbor_walk.pyx reads.
 *
 * selectolax's wheel does not ship lexbor's headers, and its symbols are not linkable from
 * another extension, so the walk reads struct fields directly and calls no lexbor function.
 * These declarations state, field for field and in order, the layout of lexbor 3.1 as vendored
 * by selectolax 1.0.2, from lexbor's headers dom/interfaces/node.h (struct lxb_dom_node),
 * dom/interfaces/event_target.h, dom/interfaces/element.h (struct lxb_dom_element),
 * dom/interfaces/attr.h (struct lxb_dom_attr), dom/interfaces/character_data.h,
 * core/str.h (lexbor_str_t), core/hash.h (struct lexbor_hash_entry) and the id constants of
 * tag/const.h and dom/interfaces/attr_const.h. Only a leading part of each struct is declared:
 * the walk never allocates one, it only reads through pointers lexbor handed out.
 *
 * A different lexbor version may lay these out differently, so the walk is only enabled for
 * exactly this version and after a self-check against selectolax's public API (see
 * pipeline/segment.py).
 */
#ifndef WARCCLEAN_LEXBOR_LAYOUT_H
#define WARCCLEAN_LEXBOR_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#define WC_LEXBOR_VERSION_MAJOR 3
#define WC_LEXBOR_VERSION_MINOR 1

/* Node types (lxb_dom_node_type_t). */
#define WC_NODE_ELEMENT 0x01
#define WC_NODE_TEXT 0x03

/* Tag ids below this index lexbor's static table; larger ids are pointers to a record that
 * starts with a wc_hash_entry (a name lexbor does not predefine). */
#define WC_TAG_LAST_ENTRY 0xc7
#define WC_TAG_TEXT 0x02
#define WC_TAG_DOCUMENT 0x03
#define WC_TAG_COMMENT 0x04
#define WC_TAG_DOCTYPE 0x05
/* The same for attribute ids. */
#define WC_ATTR_LAST_ENTRY 0x49

/* Names up to this many bytes are stored inside the hash entry. */
#define WC_HASH_SHORT_SIZE 16

typedef struct {
    unsigned char *data;
    size_t length;
} wc_str;

typedef struct wc_hash_entry {
    union {
        unsigned char *long_str;
        unsigned char short_str[WC_HASH_SHORT_SIZE + 1];
    } u;
    size_t length;
    struct wc_hash_entry *next;
} wc_hash_entry;

typedef struct wc_node {
    void *events; /* the event target, the node's first member */
    uintptr_t local_name; /* the tag or attribute id */
    uintptr_t prefix;
    uintptr_t ns;
    void *owner_document;
    struct wc_node *next;
    struct wc_node *prev;
    struct wc_node *parent;
    struct wc_node *first_child;
    struct wc_node *last_child;
    void *user;
    int type; /* an enum of small non-negative values */
} wc_node;

typedef struct wc_attr {
    wc_node node;
    uintptr_t upper_name;
    uintptr_t qualified_name;
    wc_str *value;
    void *owner;
    struct wc_attr *next;
    struct wc_attr *prev;
} wc_attr;

typedef struct {
    wc_node node;
    uintptr_t upper_name;
    uintptr_t qualified_name;
    wc_str *is_value;
    wc_attr *first_attr;
    wc_attr *last_attr;
} wc_element;

typedef struct {
    wc_node node;
    wc_str data;
} wc_character_data;

/* The name a hash entry holds (lexbor keeps short names inline). */
static inline const unsigned char *wc_hash_entry_str(const wc_hash_entry *entry) {
    return entry->length <= WC_HASH_SHORT_SIZE ? entry->u.short_str : entry->u.long_str;
}

#endif
