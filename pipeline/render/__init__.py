"""A page's kept blocks as plain text and as Markdown (`blocks.render`), and the decision that
keeps or drops a data table whole (`table_units.keep_whole`): the one place structure recorded on
the blocks (`pipeline.types.Shape`) is turned into output."""
