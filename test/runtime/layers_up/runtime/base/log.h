/* Fixture of the layer check: a header of the bottom layer. */
