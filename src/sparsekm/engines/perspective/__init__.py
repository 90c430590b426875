"""The structured interior point of DSCoP (13)'s dual (paper D): :mod:`.ipm` drives it, :mod:`.form`
holds the standard form, :mod:`.cones` the cone algebra and NT scaling, :mod:`.kkt` the Newton
system."""
